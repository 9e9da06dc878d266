package io.sqlqueue.boot.schema;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;

import io.sqlqueue.internal.schema.QueueSchemaMigrator;
import io.sqlqueue.internal.store.Dialect;

/**
 * Creates and upgrades the queue's table when the application context starts, with the
 * queue's private Flyway run ({@link QueueSchemaMigrator}). It is a database initializer
 * in Spring Boot's sense: beans marked
 * {@link org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization}
 * are created after it, and it never registers a {@code Flyway} bean, so the
 * application's own Flyway migrations still run.
 */
public class QueueSchemaInitializer implements InitializingBean {

	private final QueueSchemaMigrator migrator;

	public QueueSchemaInitializer(DataSource dataSource, Dialect dialect, @Nullable String schema) {
		this.migrator = new QueueSchemaMigrator(dataSource, dialect, schema);
	}

	@Override
	public void afterPropertiesSet() {
		this.migrator.migrate();
	}

}
