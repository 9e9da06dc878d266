package io.sqlqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import io.sqlqueue.internal.manager.Manager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The claim on every database and claim method: jobs in run order, never more than asked,
 * only of the queues and handlers asked for, and every job exactly once when instances race.
 * {@link QueueConformanceTests} implements this.
 */
interface ClaimConformance extends ConformanceSupport {

	/** Jobs the concurrency test drains. */
	int concurrencyJobs();

	@Test
	default void higherPriorityRunsFirstAndEqualPriorityRunsInEnqueueOrder() {
		long low1 = fixture().queue().enqueue(Job.of("work", 1));
		long high = fixture().queue().enqueue(Job.of("work", 2).priority(10));
		long low2 = fixture().queue().enqueue(Job.of("work", 3));
		long mid = fixture().queue().enqueue(Job.of("work", 4).priority(5));
		List<Long> order = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			order.add(claim("default", 1, "work").get(0).id());
		}
		assertThat(order).containsExactly(high, mid, low1, low2);
		assertThat(claim("default", 1, "work")).isEmpty();
	}

	@Test
	default void batchClaimReturnsJobsInRunOrderAndNeverMoreThanTheLimit() {
		List<Long> ids = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			ids.add(fixture().queue().enqueue(Job.of("work", i)));
		}
		List<JobRecord> first = claim("default", 10, "work");
		assertThat(first).extracting(JobRecord::id).containsExactlyElementsOf(ids.subList(0, 10));
		assertThat(first).allSatisfy((job) -> {
			assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
			assertThat(job.attempts()).isEqualTo(1);
			assertThat(job.leaseToken()).isNotNull();
		});
		assertThat(fixture().count("status = 'RUNNING'")).isEqualTo(10);
	}

	@Test
	default void managerClaimsOnlyItsQueuesAndHandlers() {
		long otherQueue = fixture().queue().enqueue(Job.of("work", null).queue("elsewhere"));
		long otherHandler = fixture().queue().enqueue("unknown.handler", null);
		assertThat(claim("default", 10, "work")).isEmpty();
		assertThat(fixture().status(otherQueue)).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().status(otherHandler)).isEqualTo(JobStatus.QUEUED);
	}

	@Test
	default void twoInstancesDrainEveryJobExactlyOnce() {
		int total = concurrencyJobs();
		fixture().jdbc().execute("CREATE TABLE ran (job_id BIGINT PRIMARY KEY, worker VARCHAR(128) NOT NULL)");
		Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
		Set<String> instancesSeen = ConcurrentHashMap.newKeySet();
		handler("record", (payload, context) -> {
			runs.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger()).incrementAndGet();
			// Hold each instance's first jobs until both have taken one: a single writer (SQLite)
			// can otherwise let one instance win every claim, and the test would not be a race.
			if (instancesSeen.size() < 2) {
				instancesSeen.add(fixture().jdbc()
					.queryForObject("SELECT lease_owner FROM queue_job WHERE id = ?", String.class, context.jobId()));
				await().atMost(WAIT).until(() -> instancesSeen.size() == 2);
			}
			fixture().jdbc().update("INSERT INTO ran (job_id, worker) VALUES (?, ?)", context.jobId(),
					Thread.currentThread().getName());
			return null;
		});
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < total; i++) {
			jobs.add(Job.of("record", i));
		}
		try (HikariDataSource one = isolatedDatabase().newDataSource(12);
				HikariDataSource two = isolatedDatabase().newDataSource(12)) {
			Manager first = fixture().startInstance((s) -> s.workerId("instance-1").defaultConcurrency(8), one);
			Manager second = fixture().startInstance((s) -> s.workerId("instance-2").defaultConcurrency(8), two);
			for (int from = 0; from < total; from += 1000) {
				fixture().queue().enqueueAll(jobs.subList(from, Math.min(total, from + 1000)));
			}
			await().atMost(Duration.ofMinutes(3))
				.pollInterval(Duration.ofMillis(200))
				.until(() -> fixture().count("status = 'SUCCEEDED'") == total);
			first.stop();
			second.stop();
			assertThat(runs).hasSize(total);
			assertThat(runs.values()).allSatisfy((count) -> assertThat(count).hasValue(1));
			assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM ran", Integer.class)).isEqualTo(total);
			assertThat(fixture().count("status <> 'SUCCEEDED' OR attempts <> 1")).isZero();
			assertThat(fixture().count("lease_owner = 'instance-1'")).isPositive();
			assertThat(fixture().count("lease_owner = 'instance-2'")).isPositive();
			assertThat(first.leaseLosses() + second.leaseLosses()).isZero();
		}
	}

}
