package io.sqlqueue.boot.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

import io.sqlqueue.JobListener;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.postgresql.PostgresNotifications;
import io.sqlqueue.observation.JobObservations;

/**
 * What more than one of the configurations derives from the application's beans and the
 * properties, kept here so that the configurations need not know each other.
 */
final class SharedWiring {

	private SharedWiring() {
	}

	/** The application's {@link JobListener} beans (such as the metrics) as one. */
	static JobListener listener(ObjectProvider<JobListener> listeners) {
		return JobListener.all(listeners.orderedStream().toList());
	}

	/** The {@link JobObservations} bean, or none (no Micrometer Tracing, or switched off). */
	static JobObservations observations(ObjectProvider<JobObservations> observations) {
		return observations.getIfUnique(() -> JobObservations.NONE);
	}

	/** Where enqueues are announced: PostgreSQL with {@code sqlqueue.jdbc.notify}, else nowhere. */
	static @Nullable String notifyChannel(Dialect dialect, SqlQueueProperties properties) {
		return (properties.getJdbc().isNotify() && dialect.notifyStatement() != null)
				? PostgresNotifications.channel(properties.getJdbc().getSchema()) : null;
	}

}
