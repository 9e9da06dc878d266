package io.sqlqueue.internal.maintenance;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;

import io.sqlqueue.JobStatus;
import io.sqlqueue.internal.schema.QueueSchemaMigrator;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.NewJob;
import io.sqlqueue.internal.store.QueueCount;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The counts' snapshot as the loop and a caller read it at once (the database's part of
 * counting is in SharedCountsConformance, on every database).
 */
class QueueStatsTests {

	/**
	 * The loop's first pass runs as the application starts: one that counted before a job was
	 * enqueued and ends after a refresh() that counted it must not leave its older counts as
	 * the latest (health would then miss the job until the next pass).
	 */
	@Test
	void aPassBegunBeforeARefreshDoesNotLeaveItsOlderCountsAsTheLatest() throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try (TestDatabase.Isolated database = TestDatabase.H2.isolated()) {
			new QueueSchemaMigrator(database.dataSource(), database.dialect(), database.schema()).migrate();
			CountDownLatch counted = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			AtomicBoolean holdTheFirst = new AtomicBoolean(true);
			JobStore store = new JobStore(database.dataSource(), database.dialect(), database.schema()) {
				@Override
				public List<QueueCount> countsByQueue() {
					List<QueueCount> counts = super.countsByQueue();
					if (holdTheFirst.getAndSet(false)) {
						counted.countDown();
						await(release);
					}
					return counts;
				}
			};
			QueueStats stats = new QueueStats(store, new SimpleAsyncTaskScheduler(), Duration.ofMinutes(1));
			Future<QueueStats.Snapshot> pass = threads.submit(stats::refreshInTurn);
			assertThat(counted.await(10, TimeUnit.SECONDS)).isTrue();
			store.insert(List.of(new NewJob("counted", "h", "1", 0, null, 0, 3, null, null)));
			Future<QueueStats.Snapshot> refreshed = threads.submit(stats::refresh);
			try {
				// Ends now unless reads wait for each other; either way the pass ends after it began.
				refreshed.get(500, TimeUnit.MILLISECONDS);
			}
			catch (TimeoutException ex) {
				// It waits for the pass.
			}
			release.countDown();
			assertThat(pass.get(10, TimeUnit.SECONDS).jobs("counted", JobStatus.QUEUED)).isZero();
			assertThat(refreshed.get(10, TimeUnit.SECONDS).jobs("counted", JobStatus.QUEUED)).isEqualTo(1);
			assertThat(stats.latest().jobs("counted", JobStatus.QUEUED)).isEqualTo(1);
		}
		finally {
			threads.shutdownNow();
		}
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
