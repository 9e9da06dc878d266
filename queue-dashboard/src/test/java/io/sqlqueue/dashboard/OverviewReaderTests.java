package io.sqlqueue.dashboard;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import io.sqlqueue.Job;
import io.sqlqueue.JobStatus;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.internal.store.ReadStore;
import io.sqlqueue.test.GatedJobStore;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How often the overview counts the jobs: at most once per refresh interval, and after a
 * count that took long at most once per ten times as long (an open page during a held
 * horizon would otherwise keep the database counting).
 */
class OverviewReaderTests {

	@Test
	void countsThatTookLongAreReusedForTenTimesAsLong() throws Exception {
		try (TestDatabase.Isolated database = TestDatabase.H2.isolated();
				QueueFixture fixture = new QueueFixture(database, database.dialect().claimMethod(),
						new PayloadCodec(JsonMapper.builder().build(), 4096))) {
			GatedJobStore store = new GatedJobStore(fixture);
			OverviewReader reader = new OverviewReader(ReadStore.of(store), null, null, null, null, null,
					Duration.ofMillis(200));
			fixture.queue().enqueue(Job.of("counted.job", 1).queue("counted"));
			store.counts.arm();
			ExecutorService thread = Executors.newSingleThreadExecutor();
			try {
				Future<Overview> slow = thread.submit(reader::read);
				await().atMost(Duration.ofSeconds(20)).until(() -> store.counts.held() == 1);
				LockSupport.parkNanos(Duration.ofMillis(400).toNanos());
				store.counts.open();
				assertThat(queued(slow.get(20, TimeUnit.SECONDS))).isEqualTo(1);
			}
			finally {
				thread.shutdownNow();
			}
			fixture.queue().enqueue(Job.of("counted.job", 2).queue("counted"));
			// Past the refresh interval, not past ten times the 400 ms the count took.
			LockSupport.parkNanos(Duration.ofMillis(600).toNanos());
			assertThat(queued(reader.read())).as("counted again").isEqualTo(1);
		}
	}

	private static long queued(Overview overview) {
		return overview.queues().stream()
			.filter((queue) -> queue.name().equals("counted"))
			.mapToLong((queue) -> queue.jobs().get(JobStatus.QUEUED))
			.sum();
	}

}
