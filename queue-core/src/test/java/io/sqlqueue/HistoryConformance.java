package io.sqlqueue;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import io.sqlqueue.admin.JobAttempt;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.admin.DefaultQueueAdmin;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

/**
 * The attempt history on every database and claim method: each ended attempt has exactly one
 * row with its job, written by whoever won the fenced write that ended it (the worker, or the
 * reaper after a lost lease), read through {@link QueueAdmin#attempts}, and pruned with its
 * job. {@link QueueConformanceTests} implements this.
 */
interface HistoryConformance extends ConformanceSupport {

	private QueueAdmin historyAdmin() {
		return new DefaultQueueAdmin(fixture().queue(), fixture().store(), null, null, null);
	}

	private List<JobAttempt> attemptsOf(long id) {
		return historyAdmin().attempts(id).orElseThrow();
	}

	private JobRecord claimAs(JobStore store, String worker, String handler, long leaseMillis) {
		List<JobRecord> claimed = store.claim(new ClaimRequest(worker, "default", List.of(handler), 1, leaseMillis));
		assertThat(claimed).hasSize(1);
		return claimed.get(0);
	}

	private static Lease lease(JobRecord job) {
		return new Lease(job.id(), job.leaseToken());
	}

	private int attemptRows() {
		return fixture().jdbc().queryForObject("SELECT COUNT(*) FROM " + table("queue_attempt"), Integer.class);
	}

	@Test
	default void eachEndedAttemptHasOneRowWithItsWorkerOutcomeAndError() {
		long id = fixture().queue().enqueue(Job.of("history.work", null).maxAttempts(5));
		JobStore store = fixture().store();
		JobRecord first = claimAs(store, "worker-a", "history.work", 30_000);
		assertThat(store.reschedule(lease(first), "first broke", Duration.ZERO)).isTrue();
		JobRecord second = claimAs(store, "worker-b", "history.work", 1);
		await().atMost(WAIT).until(() -> !store.reapExpired(10, Reaper.DEFAULT_MAX_CRASHES).isEmpty());
		JobRecord third = claimAs(store, "worker-c", "history.work", 30_000);
		assertThat(attemptsOf(id)).as("the running attempt is on the job's row only").hasSize(2);
		assertThat(store.complete(List.of(new Completion(lease(third), "\"ok\"")))).containsExactly(true);

		List<JobAttempt> attempts = attemptsOf(id);
		assertThat(attempts).extracting(JobAttempt::attempt).containsExactly(1, 2, 3);
		assertThat(attempts).extracting(JobAttempt::worker).containsExactly("worker-a", "worker-b", "worker-c");
		assertThat(attempts).extracting(JobAttempt::outcome)
			.containsExactly("retried", JobAttempt.LEASE_EXPIRED, "succeeded");
		assertThat(attempts).extracting(JobAttempt::status)
			.containsExactly(JobStatus.QUEUED, JobStatus.QUEUED, JobStatus.SUCCEEDED);
		assertThat(attempts.get(0).error()).isEqualTo("first broke");
		assertThat(attempts.get(1).error()).startsWith("Lease expired");
		assertThat(attempts.get(2).error()).isNull();
		// The claim's own reading of its start may differ from the stored one by the write's own
		// moment (MariaDB): the history copies the stored one.
		assertThat(attempts.get(0).startedAt()).isCloseTo(first.startedAt(), within(1, ChronoUnit.SECONDS));
		assertThat(attempts.get(1).startedAt()).isCloseTo(second.startedAt(), within(1, ChronoUnit.SECONDS));
		assertThat(attempts.get(2).startedAt()).isEqualTo(fixture().job(id).startedAt());
		for (JobAttempt attempt : attempts) {
			assertThat(attempt.endedAt()).isAfterOrEqualTo(attempt.startedAt());
		}
	}

	@Test
	default void failuresCancelsAndGiveBacksEndAsTheySay() {
		List<Long> ids = fixture().queue()
			.enqueueAll(List.of(Job.of("history.end", 1), Job.of("history.end", 2), Job.of("history.end", 3)));
		JobStore store = fixture().store();
		List<JobRecord> claimed = claim("default", 3, "history.end");
		assertThat(claimed).hasSize(3);
		Map<Long, JobRecord> byId = new HashMap<>();
		claimed.forEach((job) -> byId.put(job.id(), job));
		assertThat(store.fail(lease(byId.get(ids.get(0))), "gave up")).isTrue();
		assertThat(store.cancelRunning(lease(byId.get(ids.get(1))), "stopped")).isTrue();
		assertThat(store.release(lease(byId.get(ids.get(2))))).isTrue();

		assertThat(attemptsOf(ids.get(0))).singleElement().satisfies((attempt) -> {
			assertThat(attempt.outcome()).isEqualTo("failed");
			assertThat(attempt.status()).isEqualTo(JobStatus.FAILED);
			assertThat(attempt.error()).isEqualTo("gave up");
			assertThat(attempt.worker()).isEqualTo("test-worker");
		});
		assertThat(attemptsOf(ids.get(1))).singleElement().satisfies((attempt) -> {
			assertThat(attempt.outcome()).isEqualTo("cancelled");
			assertThat(attempt.status()).isEqualTo(JobStatus.CANCELLED);
			assertThat(attempt.error()).isEqualTo("stopped");
		});
		assertThat(attemptsOf(ids.get(2))).as("a give-back is no attempt").isEmpty();
		assertThat(attemptRows()).isEqualTo(2);
	}

	@Test
	default void aWriteThatLostItsLeaseRecordsNothingAndTheReapersRowStands() {
		long id = fixture().queue().enqueue("history.lost", null);
		JobStore store = fixture().store();
		JobRecord lost = claimAs(store, "frozen", "history.lost", 1);
		await().atMost(WAIT).until(() -> !store.reapExpired(10, Reaper.DEFAULT_MAX_CRASHES).isEmpty());
		Lease stale = lease(lost);
		assertThat(store.complete(List.of(new Completion(stale, "\"late\"")))).containsExactly(false);
		assertThat(store.reschedule(stale, "late", Duration.ZERO)).isFalse();
		assertThat(store.fail(stale, "late")).isFalse();
		assertThat(store.cancelRunning(stale, "late")).isFalse();
		assertThat(attemptsOf(id)).singleElement()
			.satisfies((attempt) -> assertThat(attempt.outcome()).isEqualTo(JobAttempt.LEASE_EXPIRED));
		// A stale success rides in the same flush as another job's live one: only the live one is recorded.
		long other = fixture().queue().enqueue("history.other", null);
		JobRecord live = claimAs(store, "fresh", "history.other", 30_000);
		assertThat(store.completeUnlessHeld(List.of(new Completion(stale, null), new Completion(lease(live), null)))
			.recorded()).containsExactly(lease(live));
		assertThat(attemptsOf(id)).singleElement()
			.satisfies((attempt) -> assertThat(attempt.worker()).isEqualTo("frozen"));
		assertThat(attemptsOf(other)).extracting(JobAttempt::worker, JobAttempt::outcome)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("fresh", "succeeded"));
		assertThat(attemptRows()).isEqualTo(2);
	}

	/**
	 * The reaper and a late flush race for the same expired leases, many times: whichever wins
	 * a job writes its one row, the other none, so each job has exactly one row, whose outcome
	 * is what the job's status says happened.
	 */
	@Test
	default void theReaperAndALateFlushRacingForExpiredLeasesLeaveExactlyOneRowPerAttempt() throws Exception {
		int jobs = 200;
		List<Job> batch = new ArrayList<>();
		for (int i = 0; i < jobs; i++) {
			batch.add(Job.of("history.race", i));
		}
		List<Long> ids = fixture().queue().enqueueAll(batch);
		try (HikariDataSource pool = isolatedDatabase().newDataSource(4)) {
			JobStore worker = fixture().newStore(pool);
			JobStore reaperStore = fixture().store();
			List<JobRecord> claimed = worker
				.claim(new ClaimRequest("racer", "default", List.of("history.race"), jobs, 200));
			assertThat(claimed).hasSize(jobs);
			// Every lease (200 ms) expired by the database's clock, as the reaper compares it.
			String expired = "status = 'RUNNING' AND lease_expires_at < " + isolatedDatabase().dialect().now();
			await().atMost(WAIT).pollInterval(Duration.ofMillis(10)).until(() -> fixture().count(expired) == jobs);
			CountDownLatch go = new CountDownLatch(1);
			CompletableFuture<Set<Lease>> flush = CompletableFuture.supplyAsync(() -> {
				awaitLatch(go);
				Set<Lease> recorded = ConcurrentHashMap.newKeySet();
				for (int from = 0; from < jobs; from += 20) {
					recorded.addAll(worker.completeUnlessHeld(claimed.subList(from, from + 20)
						.stream()
						.map((job) -> new Completion(lease(job), null))
						.toList()).recorded());
				}
				return recorded;
			});
			CompletableFuture<Integer> reaped = CompletableFuture.supplyAsync(() -> {
				awaitLatch(go);
				int count = 0;
				for (int pass = 0; pass < 50; pass++) {
					count += reaperStore.reapExpired(10, Reaper.DEFAULT_MAX_CRASHES).size();
				}
				return count;
			});
			go.countDown();
			Set<Lease> recorded = flush.get(60, TimeUnit.SECONDS);
			int reapedCount = reaped.get(60, TimeUnit.SECONDS);
			// What neither got in its passes (passed over while the other held it) is reaped now.
			await().atMost(WAIT).until(() -> reaperStore.reapExpired(100, Reaper.DEFAULT_MAX_CRASHES).isEmpty()
					&& fixture().count("status = 'RUNNING'") == 0);
			int succeeded = 0;
			for (long id : ids) {
				JobRecord job = fixture().job(id);
				List<JobAttempt> attempts = attemptsOf(id);
				assertThat(attempts).as("job %d", id).hasSize(1);
				JobAttempt attempt = attempts.get(0);
				assertThat(attempt.worker()).isEqualTo("racer");
				if (job.status() == JobStatus.SUCCEEDED) {
					succeeded++;
					assertThat(attempt.outcome()).isEqualTo("succeeded");
				}
				else {
					assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
					assertThat(attempt.outcome()).isEqualTo(JobAttempt.LEASE_EXPIRED);
				}
			}
			assertThat(succeeded).isEqualTo(recorded.size());
			assertThat(attemptRows()).isEqualTo(jobs);
			assertThat(reapedCount).isLessThanOrEqualTo(jobs - succeeded);
		}
	}

	/**
	 * A caller's open transaction holds a running job's row (it enqueued a job to run after
	 * it): the flush passes the success over and writes no row for it; once the caller commits,
	 * the success and its one row are written.
	 */
	@Test
	default void aSuccessPassedOverWhileACallerHoldsItsRowIsRecordedOnceLater() throws Exception {
		assumeRowLocks();
		long id = fixture().queue().enqueue("history.held", null);
		JobStore store = fixture().store();
		JobRecord running = claimAs(store, "holder-worker", "history.held", 30_000);
		try (io.sqlqueue.test.OpenTransaction<Long> caller = io.sqlqueue.test.OpenTransaction.begin(
				isolatedDatabase().dataSource(), () -> fixture().queue().enqueue(Job.of("history.after", null).after(id)))) {
			caller.result();
			io.sqlqueue.internal.store.CompletedJobs first = store
				.completeUnlessHeld(List.of(new Completion(lease(running), null)));
			assertThat(first.recorded()).isEmpty();
			assertThat(first.passedOver()).containsExactly(lease(running));
			assertThat(attemptRows()).isZero();
			caller.commit();
		}
		assertThat(store.completeUnlessHeld(List.of(new Completion(lease(running), null))).recorded())
			.containsExactly(lease(running));
		assertThat(attemptsOf(id)).singleElement().satisfies((attempt) -> {
			assertThat(attempt.outcome()).isEqualTo("succeeded");
			assertThat(attempt.worker()).isEqualTo("holder-worker");
		});
		assertThat(attemptRows()).isEqualTo(1);
	}

	@Test
	default void managersOnTwoInstancesRecordEveryAttemptOnceWithTheirWorkerIds() throws Exception {
		Map<Long, Boolean> failedOnce = new ConcurrentHashMap<>();
		fixture().register(new HandlerDefinition("history.flaky", "default", 3, null, Set.of(), (payload, context) -> {
			if (failedOnce.putIfAbsent(context.jobId(), true) == null) {
				throw new IllegalStateException("first attempt of " + context.jobId() + " breaks");
			}
			return null;
		}, "history.flaky"));
		List<Job> batch = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			batch.add(Job.of("history.flaky", i));
		}
		try (HikariDataSource pool = isolatedDatabase().newDataSource(8)) {
			fixture().startManager((settings) -> settings.workerId("instance-one"));
			fixture().startInstance((settings) -> settings.workerId("instance-two"), pool);
			List<Long> ids = fixture().queue().enqueueAll(batch);
			for (long id : ids) {
				awaitStatus(id, JobStatus.SUCCEEDED, SETTLE_WAIT);
			}
			for (long id : ids) {
				List<JobAttempt> attempts = attemptsOf(id);
				assertThat(attempts).as("job %d", id).hasSize(2);
				assertThat(attempts).extracting(JobAttempt::attempt).containsExactly(1, 2);
				assertThat(attempts).extracting(JobAttempt::outcome).containsExactly("retried", "succeeded");
				assertThat(attempts.get(0).error()).contains("first attempt of " + id + " breaks");
				assertThat(attempts).extracting(JobAttempt::worker)
					.allSatisfy((worker) -> assertThat(worker).startsWith("instance-"));
			}
			assertThat(attemptRows()).isEqualTo(200);
		}
	}

	@Test
	default void aTransactionalHandlersAttemptIsRecordedWithItsCommitOnly() {
		transactionalHandler("history.tx", (payload, context) -> {
			if (payload.contains("break")) {
				throw new IllegalStateException("rolled back");
			}
			return null;
		});
		long ok = fixture().queue().enqueue(Job.of("history.tx", "fine"));
		long broken = fixture().queue().enqueue(Job.of("history.tx", "break").maxAttempts(1));
		fixture().startManager((settings) -> settings.workerId("tx-worker"));
		await().atMost(WAIT).until(() -> fixture().job(ok).status().isFinished()
				&& fixture().job(broken).status().isFinished());
		assertThat(fixture().job(ok).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(fixture().job(broken).status()).isEqualTo(JobStatus.FAILED);
		assertThat(attemptsOf(ok)).singleElement().satisfies((attempt) -> {
			assertThat(attempt.outcome()).isEqualTo("succeeded");
			assertThat(attempt.worker()).isEqualTo("tx-worker");
		});
		assertThat(attemptsOf(broken)).singleElement().satisfies((attempt) -> {
			assertThat(attempt.outcome()).isEqualTo("failed");
			assertThat(attempt.error()).contains("rolled back");
		});
	}

	@Test
	default void anInstanceWithoutTheHistoryLeavesAGapThatTheCountShows() {
		long id = fixture().queue().enqueue(Job.of("history.mixed", null).maxAttempts(3));
		try (HikariDataSource pool = isolatedDatabase().newDataSource(2)) {
			// An instance older than the attempt history writes its ends without rows.
			JobStore older = fixture().newStore(pool);
			older.attempts().setEnabled(false);
			JobRecord first = claimAs(older, "older", "history.mixed", 30_000);
			assertThat(older.reschedule(lease(first), "old broke", Duration.ZERO)).isTrue();
			JobRecord second = claimAs(fixture().store(), "newer", "history.mixed", 30_000);
			assertThat(fixture().store().complete(List.of(new Completion(lease(second), null)))).containsExactly(true);
		}
		assertThat(fixture().job(id).attempts()).isEqualTo(2);
		assertThat(attemptsOf(id)).singleElement().satisfies((attempt) -> {
			assertThat(attempt.attempt()).isEqualTo(2);
			assertThat(attempt.worker()).isEqualTo("newer");
		});
	}

	@Test
	default void prunedJobsTakeTheirAttemptsWithThem() {
		List<Long> ids = fixture().queue().enqueueAll(List.of(Job.of("history.prune", 1), Job.of("history.prune", 2)));
		JobStore store = fixture().store();
		List<JobRecord> claimed = claim("default", 2, "history.prune");
		JobRecord toFail = claimed.stream().filter((job) -> job.id() == ids.get(0)).findFirst().orElseThrow();
		JobRecord toSucceed = claimed.stream().filter((job) -> job.id() == ids.get(1)).findFirst().orElseThrow();
		assertThat(store.fail(lease(toFail), "broken")).isTrue();
		assertThat(store.complete(List.of(new Completion(lease(toSucceed), null)))).containsExactly(true);
		assertThat(attemptRows()).isEqualTo(2);
		await().pollDelay(Duration.ofMillis(50)).atMost(WAIT).until(() -> true);
		assertThat(store.pruneFinished(JobStatus.FAILED, Duration.ofMillis(10), 100)).isEqualTo(1);
		assertThat(historyAdmin().attempts(ids.get(0))).isEmpty();
		assertThat(attemptsOf(ids.get(1))).hasSize(1);
		assertThat(attemptRows()).isEqualTo(1);
	}

	@Test
	default void anUnknownJobHasNoHistoryAndAJobYetToRunAnEmptyOne() {
		long queued = fixture().queue().enqueue("history.idle", null);
		assertThat(historyAdmin().attempts(queued)).contains(List.of());
		assertThat(historyAdmin().attempts(queued + 1_000_000)).isEqualTo(Optional.empty());
		assertThat(attemptRows()).isZero();
	}

	private static void awaitLatch(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
