package io.sqlqueue.boot.autoconfigure;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;

import javax.sql.DataSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import io.sqlqueue.boot.diagnostics.DatabaseUnreachableException;
import io.sqlqueue.boot.schema.QueueSchemaInitializer;
import io.sqlqueue.internal.flow.FlowClaim;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.FlowStore;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.ReadStore;
import io.sqlqueue.internal.store.ScheduleStore;
import io.sqlqueue.internal.store.dialect.Dialects;

/**
 * The queue's database: its dialect (named or detected), the job store and the stores it
 * owns, the store the reads that tolerate staleness go to, and the schema migration.
 */
@Configuration(proxyBeanMethods = false)
class StoreConfiguration {

	/**
	 * Whether the database could not be reached or refused the login: SQLSTATE class 08
	 * (connection exception, also the pool's timeout waiting for one) or 28 (invalid
	 * authorization), rather than a statement that failed once connected.
	 */
	private static boolean isConnectionFailure(SQLException ex) {
		String state = ex.getSQLState();
		return ex instanceof SQLTransientConnectionException
				|| ex instanceof SQLNonTransientConnectionException
				|| (state != null && (state.startsWith("08") || state.startsWith("28")));
	}

	@Bean
	@ConditionalOnMissingBean
	Dialect sqlqueueDialect(DataSource dataSource, SqlQueueProperties properties, Environment environment) {
		String name = properties.getJdbc().getDialect();
		try {
			return (name != null) ? Dialects.check(Dialects.named(name), dataSource) : Dialects.detect(dataSource);
		}
		catch (IllegalStateException ex) {
			// The first connection of the start-up: a database that does not answer is named, with its
			// cause, by DatabaseUnreachableFailureAnalyzer rather than at the end of a chain of beans.
			if (ex.getCause() instanceof SQLException connection && isConnectionFailure(connection)) {
				throw new DatabaseUnreachableException(DataSourceUrl.of(dataSource, environment), connection);
			}
			throw ex;
		}
	}

	@Bean
	@ConditionalOnMissingBean
	JobStore sqlqueueJobStore(DataSource dataSource, Dialect dialect, SqlQueueProperties properties) {
		JdbcProperties jdbc = properties.getJdbc();
		ClaimMethod claimMethod = (jdbc.getClaimMethod() != null) ? jdbc.getClaimMethod() : dialect.claimMethod();
		JobStore store = new JobStore(dataSource, dialect, jdbc.getSchema(), claimMethod,
				SharedWiring.notifyChannel(dialect, properties), FlowClaim::new);
		store.attempts().setEnabled(properties.getHistory().isAttempts());
		store.audit().setEnabled(properties.getHistory().isAudit());
		return store;
	}

	/**
	 * The job store's own flow store, the one its claims of limited queues use: not
	 * replaceable on its own (replace the {@link JobStore}), so that flow control and the
	 * claim never read different stores.
	 */
	@Bean
	FlowStore sqlqueueFlowStore(JobStore store) {
		return store.flows();
	}

	/** The job store's own schedule store: not replaceable on its own (replace the {@link JobStore}). */
	@Bean
	ScheduleStore sqlqueueScheduleStore(JobStore store) {
		return store.schedules();
	}

	/**
	 * The reads that tolerate staleness: on the {@link SqlQueueReadDataSource @SqlQueueReadDataSource}
	 * DataSource where the application has one (the same dialect and schema as the queue's),
	 * else on the job store. Not a {@link JobStore}: nothing that writes can reach the replica.
	 */
	@Bean
	@ConditionalOnMissingBean
	ReadStore sqlqueueReadStore(JobStore store, Dialect dialect, SqlQueueProperties properties,
			@SqlQueueReadDataSource ObjectProvider<DataSource> readDataSource) {
		DataSource replica = readDataSource.getIfAvailable();
		return (replica != null) ? ReadStore.replica(replica, dialect, properties.getJdbc().getSchema())
				: ReadStore.of(store);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(prefix = "sqlqueue.jdbc", name = "migrate", matchIfMissing = true)
	QueueSchemaInitializer sqlqueueSchemaInitializer(DataSource dataSource, Dialect dialect,
			SqlQueueProperties properties) {
		return new QueueSchemaInitializer(dataSource, dialect, properties.getJdbc().getSchema());
	}

}
