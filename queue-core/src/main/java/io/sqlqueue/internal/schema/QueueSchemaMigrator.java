package io.sqlqueue.internal.schema;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sqlqueue.Names;
import io.sqlqueue.internal.store.Dialect;

/**
 * Creates and upgrades the queue's table with a private Flyway run: migrations from
 * {@code classpath:db/sqlqueue/{dialect}}, history in {@code sqlqueue_schema_history}, so it
 * never touches the application's own migrations. It is deliberately not a {@code Flyway}
 * bean: Spring Boot's Flyway auto-configuration backs off when one exists.
 */
public final class QueueSchemaMigrator {

	public static final String HISTORY_TABLE = "sqlqueue_schema_history";

	private static final Logger logger = LoggerFactory.getLogger(QueueSchemaMigrator.class);

	private final DataSource dataSource;

	private final Dialect dialect;

	private final @Nullable String schema;

	public QueueSchemaMigrator(DataSource dataSource, Dialect dialect, @Nullable String schema) {
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.schema = Names.requireSchema(schema);
	}

	/** Applies the migrations not applied yet; returns how many ran. */
	public int migrate() {
		FluentConfiguration configuration = Flyway.configure(getClass().getClassLoader())
			.dataSource(this.dataSource)
			.locations("classpath:db/sqlqueue/" + this.dialect.name())
			.table(HISTORY_TABLE)
			// The schema usually holds the application's tables already: start our history at 0.
			.baselineOnMigrate(true)
			.baselineVersion("0");
		if (this.schema != null) {
			configuration.schemas(this.schema).defaultSchema(this.schema).createSchemas(true);
		}
		MigrateResult result = configuration.load().migrate();
		if (result.migrationsExecuted > 0) {
			logger.info("sqlqueue schema migrated to version {} ({} migrations) on {}", result.targetSchemaVersion,
					result.migrationsExecuted, this.dialect);
		}
		return result.migrationsExecuted;
	}

}
