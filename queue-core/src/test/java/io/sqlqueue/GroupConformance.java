package io.sqlqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.test.OpenTransaction;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Groups on every database and claim method: the jobs of one group run one at a time, in
 * order, whatever the order of commits and however many instances claim.
 * {@link QueueConformanceTests} implements this.
 */
interface GroupConformance extends ConformanceSupport {

	@Test
	default void jobsOfOneGroupRunOneAtATimeInOrder() throws Exception {
		Map<String, List<Integer>> order = new ConcurrentHashMap<>();
		Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
		AtomicBoolean overlapped = new AtomicBoolean();
		handler("grouped", (payload, context) -> {
			String[] parts = payload.replace("\"", "").split(":");
			AtomicInteger now = running.computeIfAbsent(parts[0], (group) -> new AtomicInteger());
			if (now.incrementAndGet() > 1) {
				overlapped.set(true);
			}
			Thread.sleep(10);
			order.computeIfAbsent(parts[0], (group) -> Collections.synchronizedList(new ArrayList<>()))
				.add(Integer.parseInt(parts[1]));
			now.decrementAndGet();
			return null;
		});
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			jobs.add(Job.of("grouped", "g:" + i).groupKey("g"));
			jobs.add(Job.of("grouped", "h:" + i).groupKey("h"));
			jobs.add(Job.of("grouped", "free" + i + ":" + i));
		}
		fixture().queue().enqueueAll(jobs);
		// Two instances, so that claims race each other as well as workers.
		try (HikariDataSource one = isolatedDatabase().newDataSource(8); HikariDataSource two = isolatedDatabase().newDataSource(8)) {
			fixture().startInstance((s) -> s.defaultConcurrency(6).batchSize(3), one);
			fixture().startInstance((s) -> s.defaultConcurrency(6).batchSize(3), two);
			await().atMost(WAIT).until(() -> fixture().count("status = 'SUCCEEDED'") == jobs.size());
			fixture().close();
		}
		assertThat(overlapped).isFalse();
		assertThat(order.get("g")).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
		assertThat(order.get("h")).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
	}

	/**
	 * The interleaving that once let two jobs of a group run at once: an older enqueue
	 * commits after a younger job of its group was claimed, while that claim is still open.
	 * A second claim then sees the younger job as waiting (the first claim has not committed)
	 * and the older one as first in its group. It must not take it: at most one job of a
	 * group runs, whatever the order of commits.
	 */
	@Test
	default void aGroupNeverRunsTwoJobsWhateverTheOrderOfCommits() throws Exception {
		assumeTrue(isolatedDatabase().database() != TestDatabase.SQLITE,
				"SQLite has one writer at a time: an open enqueue holds off every claim, so this interleaving "
						+ "cannot happen there (the stress test below covers SQLite)");
		DataSource dataSource = isolatedDatabase().dataSource();
		JobQueue queue = fixture().queue();
		try (OpenTransaction<Long> olderEnqueue = OpenTransaction.begin(dataSource,
				() -> queue.enqueue(Job.of("step", 1).groupKey("g")))) {
			long older = olderEnqueue.result();
			long younger = queue.enqueue(Job.of("step", 2).groupKey("g"));
			assertThat(younger).isGreaterThan(older);
			try (OpenTransaction<List<JobRecord>> firstClaim = OpenTransaction.begin(dataSource,
					() -> claim("default", 10, "step"))) {
				assertThat(firstClaim.result()).extracting(JobRecord::id).containsExactly(younger);
				olderEnqueue.commit();
				CompletableFuture<List<JobRecord>> secondClaim = CompletableFuture
					.supplyAsync(() -> claim("default", 10, "step"));
				// The second claim either waits for the first (the group's running-job index) or
				// returns at once; either way it is under way before the first commits.
				await().pollDelay(Duration.ofMillis(300)).atMost(WAIT).until(() -> true);
				firstClaim.commit();
				assertThat(secondClaim.get(30, TimeUnit.SECONDS)).isEmpty();
			}
			assertThat(fixture().count("group_key = 'g' AND status = 'RUNNING'")).isEqualTo(1);
			assertThat(fixture().status(older)).isEqualTo(JobStatus.QUEUED);
		}
	}

	@Test
	default void operatorRetryOfAnOldFailedJobWaitsForItsGroup() {
		long old = fixture().queue().enqueue(Job.of("step", 1).groupKey("g").maxAttempts(1));
		JobRecord first = claim("default", 10, "step").get(0);
		assertThat(fixture().store().fail(new Lease(old, first.leaseToken()), "boom")).isTrue();
		long next = fixture().queue().enqueue(Job.of("step", 2).groupKey("g"));
		JobRecord running = claim("default", 10, "step").get(0);
		assertThat(running.id()).isEqualTo(next);
		assertThat(fixture().queue().retry(old)).isTrue();
		assertThat(claim("default", 10, "step")).isEmpty();
		fixture().store().complete(List.of(new Completion(new Lease(next, running.leaseToken()), null)));
		assertThat(claim("default", 10, "step")).extracting(JobRecord::id).containsExactly(old);
	}

	/**
	 * Enqueuers whose transactions commit out of id order, and three instances claiming in
	 * small batches: no two jobs of a group ever overlap, and every job runs exactly once.
	 */
	@Test
	default void groupsHoldUnderConcurrentEnqueuersAndSeveralInstances() throws Exception {
		int enqueuers = 3;
		int transactionsEach = 40;
		Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
		Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
		AtomicBoolean overlapped = new AtomicBoolean();
		handler("stress", (payload, context) -> {
			String group = payload.replace("\"", "");
			AtomicInteger now = running.computeIfAbsent(group, (key) -> new AtomicInteger());
			if (!group.isEmpty() && now.incrementAndGet() > 1) {
				overlapped.set(true);
			}
			runs.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger()).incrementAndGet();
			Thread.sleep(2);
			if (!group.isEmpty()) {
				now.decrementAndGet();
			}
			return null;
		});
		AtomicInteger enqueued = new AtomicInteger();
		List<HikariDataSource> pools = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				HikariDataSource pool = isolatedDatabase().newDataSource(8);
				pools.add(pool);
				fixture().startInstance((s) -> s.defaultConcurrency(4).batchSize(4), pool);
			}
			TransactionTemplate transaction = new TransactionTemplate(
					new DataSourceTransactionManager(isolatedDatabase().dataSource()));
			List<CompletableFuture<Void>> writers = new ArrayList<>();
			for (int w = 0; w < enqueuers; w++) {
				writers.add(CompletableFuture.runAsync(() -> {
					java.util.Random random = new java.util.Random();
					for (int t = 0; t < transactionsEach; t++) {
						transaction.executeWithoutResult((status) -> {
							for (int j = 0; j < 1 + random.nextInt(3); j++) {
								int group = random.nextInt(5);
								Job job = (group == 0) ? Job.of("stress", "")
										: Job.of("stress", "g" + group).groupKey("g" + group);
								fixture().queue().enqueue(job);
								enqueued.incrementAndGet();
							}
							// Commits come out of id order: the next transaction may commit first.
							sleepQuietly(random.nextInt(4));
						});
					}
				}));
			}
			CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
			await().atMost(WAIT).until(() -> fixture().count("status = 'SUCCEEDED'") == enqueued.get());
			fixture().close();
		}
		finally {
			pools.forEach(HikariDataSource::close);
		}
		assertThat(overlapped).isFalse();
		assertThat(runs).hasSize(enqueued.get());
		assertThat(runs.values()).allSatisfy((count) -> assertThat(count).hasValue(1));
	}

}
