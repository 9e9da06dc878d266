package io.sqlqueue.internal.store.postgresql;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobStatus;
import io.sqlqueue.internal.schema.QueueSchemaMigrator;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.QueueCount;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The counts of a large table on PostgreSQL, with the thresholds lowered so that a small
 * table takes the large table's path: queued jobs exact up to the cap, the oldest due job
 * exact across priority levels, running jobs exact, the rest from a sample of pages.
 */
@ResourceLock(TestDatabase.POSTGRESQL_SERVER)
class PostgresQueueCounterIT {

	private static TestDatabase.Isolated database;

	private static JdbcTemplate jdbc;

	private static JobStore store;

	private static String table;

	@BeforeAll
	static void fillTable() {
		database = TestDatabase.POSTGRESQL.isolated();
		new QueueSchemaMigrator(database.dataSource(), database.dialect(), database.schema()).migrate();
		jdbc = new JdbcTemplate(database.dataSource());
		store = new JobStore(database.dataSource(), database.dialect(), database.schema());
		table = "\"" + database.schema() + "\".queue_job";
		jdbc.execute("""
				INSERT INTO queue_job (queue, handler, payload, status, max_attempts, finished_at)
				SELECT 'q' || (i % 3), 'h', '{}', CASE WHEN i % 10 = 0 THEN 'FAILED' ELSE 'SUCCEEDED' END, 3,
				       now() - i * interval '1 second'
				FROM generate_series(1, 30000) AS i""");
		// q0: 40 due at priority 0, the oldest 2 hours old, and 5 at priority 9 due in a day;
		// q1: 7 due at priority 5, the oldest 10 minutes old, under a higher level whose jobs are not due.
		jdbc.execute("""
				INSERT INTO queue_job (queue, handler, payload, status, max_attempts, priority, run_at)
				SELECT 'q0', 'h', '{}', 'QUEUED', 3, 0, now() - i * interval '3 minutes'
				FROM generate_series(1, 40) AS i""");
		jdbc.execute("""
				INSERT INTO queue_job (queue, handler, payload, status, max_attempts, priority, run_at)
				SELECT 'q0', 'h', '{}', 'QUEUED', 3, 9, now() + interval '1 day'
				FROM generate_series(1, 5) AS i""");
		jdbc.execute("""
				INSERT INTO queue_job (queue, handler, payload, status, max_attempts, priority, run_at)
				SELECT 'q1', 'h', '{}', 'QUEUED', 3, p, CASE WHEN p = 5 THEN now() - i * interval '10 minutes' / 7
				                                            ELSE now() + interval '1 hour' END
				FROM generate_series(1, 7) AS i, (VALUES (5), (8)) AS levels(p)""");
		jdbc.execute("""
				INSERT INTO queue_job (queue, handler, payload, status, max_attempts, lease_token, lease_expires_at)
				SELECT 'q2', 'h', '{}', 'RUNNING', 3, i, now() + interval '1 minute'
				FROM generate_series(1, 3) AS i""");
		jdbc.execute("VACUUM ANALYZE queue_job");
	}

	@AfterAll
	static void dropTable() {
		database.close();
	}

	@Test
	void aSmallTableIsCountedExactly() {
		List<QueueCount> counts = store.countsByQueue();
		assertThat(counts).noneMatch(QueueCount::estimated);
		Map<String, QueueCount> byKey = byKey(counts);
		assertThat(byKey.get("q0 QUEUED").jobs()).isEqualTo(45);
		assertThat(byKey.get("q1 FAILED").jobs()).isEqualTo(1000);
	}

	@Test
	void aLargeTableCountsQueuedAndRunningExactlyAndEstimatesTheRest() {
		long pages = jdbc.queryForObject("SELECT pg_relation_size(CAST(? AS regclass)) / 8192", Long.class, table);
		// Every table counts as large; a sample of a third of the pages.
		PostgresQueueCounter counter = new PostgresQueueCounter(jdbc, table, () -> {
			throw new AssertionError("counted exactly");
		}, 0, 10_000, pages / 3);
		Map<String, QueueCount> counts = byKey(counter.count());
		assertThat(counts.get("q0 QUEUED")).satisfies((q0) -> {
			assertThat(q0.jobs()).isEqualTo(45);
			assertThat(q0.estimated()).isFalse();
			assertThat(q0.oldestDueAge()).isCloseTo(Duration.ofMinutes(120), Duration.ofSeconds(30));
		});
		assertThat(counts.get("q1 QUEUED")).satisfies((q1) -> {
			assertThat(q1.jobs()).isEqualTo(14);
			assertThat(q1.oldestDueAge()).isCloseTo(Duration.ofMinutes(10), Duration.ofSeconds(30));
		});
		assertThat(counts.get("q2 RUNNING").jobs()).isEqualTo(3);
		assertThat(counts.get("q2 RUNNING").estimated()).isFalse();
		assertThat(counts).doesNotContainKey("q2 QUEUED");
		// 9,000 succeeded per queue: a third of the pages sampled, so within a wide margin.
		for (String queue : List.of("q0", "q1", "q2")) {
			QueueCount succeeded = counts.get(queue + " SUCCEEDED");
			assertThat(succeeded.estimated()).isTrue();
			assertThat((double) succeeded.jobs()).isCloseTo(9_000, within(4_500.0));
		}
	}

	@Test
	void aQueueOverTheCapShowsTheSamplesEstimateNeverLessThanTheCap() {
		// The whole table sampled: the estimate is the count.
		PostgresQueueCounter counter = new PostgresQueueCounter(jdbc, table, List::of, 0, 10, Long.MAX_VALUE / 200);
		Map<String, QueueCount> counts = byKey(counter.count());
		assertThat(counts.get("q0 QUEUED")).satisfies((q0) -> {
			assertThat(q0.jobs()).isEqualTo(45);
			assertThat(q0.estimated()).isTrue();
		});
		assertThat(counts.get("q1 QUEUED")).satisfies((q1) -> {
			assertThat(q1.jobs()).isEqualTo(14);
			assertThat(q1.estimated()).isTrue();
		});
		assertThat(counts.get("q1 FAILED").jobs()).isEqualTo(1000);
		assertThat(counts.get("q1 SUCCEEDED").jobs()).isEqualTo(9000);
	}

	private static Map<String, QueueCount> byKey(List<QueueCount> counts) {
		return counts.stream()
			.collect(Collectors.toMap((count) -> count.queue() + " " + count.status(), Function.identity()));
	}

}
