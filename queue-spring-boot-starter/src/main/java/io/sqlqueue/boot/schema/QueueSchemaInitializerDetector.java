package io.sqlqueue.boot.schema;

import java.util.Set;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;

/**
 * Tells Spring Boot that {@link QueueSchemaInitializer} beans initialize the database.
 * They run after the application's Flyway or Liquibase migrations (order 1): those
 * refuse a non-empty schema that has no history of theirs, whereas the queue's migration
 * starts its own history from a baseline in a schema that already has tables.
 */
class QueueSchemaInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

	static final int ORDER = 10;

	@Override
	protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
		return Set.of(QueueSchemaInitializer.class);
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

}
