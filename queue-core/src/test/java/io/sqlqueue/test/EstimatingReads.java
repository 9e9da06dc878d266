package io.sqlqueue.test;

import java.util.List;

import javax.sql.DataSource;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.sqlqueue.JobStatus;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.QueueCount;
import io.sqlqueue.internal.store.ReadStore;

/**
 * Reads whose {@code QUEUED} counts are marked as estimates, as {@code PostgresQueueCounter}
 * marks them on a table past its threshold (hundreds of megabytes, too big for a test): for
 * the endpoint's and the dashboard's tests that the mark reaches the reader.
 */
public final class EstimatingReads {

	private EstimatingReads() {
	}

	/** The estimating reads as the application's {@link ReadStore} bean, in place of the starter's. */
	@Configuration(proxyBeanMethods = false)
	public static class AsTheReadStore {

		@Bean
		ReadStore estimatingReads(DataSource dataSource, Dialect dialect) {
			return EstimatingReads.on(dataSource, dialect);
		}

	}

	public static ReadStore on(DataSource dataSource, Dialect dialect) {
		return ReadStore.of(new JobStore(dataSource, dialect, null) {

			@Override
			public List<QueueCount> countsByQueue() {
				return super.countsByQueue().stream()
					.map((count) -> new QueueCount(count.queue(), count.status(), count.jobs(), count.oldestDueAge(),
							count.status() == JobStatus.QUEUED))
					.toList();
			}

		});
	}

}
