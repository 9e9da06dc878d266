package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import io.sqlqueue.ReapedJob;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.test.OpenTransaction;
import io.sqlqueue.test.SwitchableDataSource;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Leases on every database and claim method: extended while a job runs, fenced once lost, and
 * reaped when their worker is gone (frozen, cut off from the database, or crashed past its
 * budget), without waiting for rows that others hold.
 * {@link QueueConformanceTests} implements this.
 */
interface LeaseConformance extends ConformanceSupport {

	// --- leases, fencing, reaping

	@Test
	default void lateWriteOfAWorkerWhoseJobWasReapedChangesNothing() {
		long id = fixture().queue().enqueue("work", null);
		JobStore store = fixture().store();
		JobRecord first = store.claim(new ClaimRequest("first", "default", List.of("work"), 1, 1)).get(0);
		await().atMost(WAIT).until(() -> !store.reapExpired(10, Reaper.DEFAULT_MAX_CRASHES).isEmpty());
		JobRecord second = claim("default", 1, "work").get(0);
		assertThat(second.attempts()).isEqualTo(2);
		assertThat(second.leaseToken()).isNotEqualTo(first.leaseToken());
		Lease stale = new Lease(id, first.leaseToken());
		assertThat(store.complete(List.of(new Completion(stale, "\"late\"")))).containsExactly(false);
		assertThat(store.fail(stale, "late")).isFalse();
		assertThat(store.reschedule(stale, "late", Duration.ZERO)).isFalse();
		assertThat(store.extendLeases(List.of(stale), Duration.ofMinutes(1)).lost()).containsExactly(stale);
		assertThat(store.complete(List.of(new Completion(new Lease(id, second.leaseToken()), "\"mine\""))))
			.containsExactly(true);
		assertThat(fixture().job(id).result()).isEqualTo("\"mine\"");
	}

	@Test
	default void reaperRequeuesExpiredLeasesAndFailsJobsOutOfAttempts() {
		long retry = fixture().queue().enqueue(Job.of("work", null).maxAttempts(2));
		long last = fixture().queue().enqueue(Job.of("work", null).maxAttempts(1));
		long alive = fixture().queue().enqueue(Job.of("work", null));
		JobStore store = fixture().store();
		store.claim(new ClaimRequest("crashed", "default", List.of("work"), 2, 1));
		store.claim(new ClaimRequest("alive", "default", List.of("work"), 1, 600_000));
		Reaper reaper = fixture().reaper(store);
		List<ReapedJob> reaped = new ArrayList<>();
		await().atMost(WAIT).until(() -> {
			reaped.addAll(reaper.runOnce());
			return reaped.size() == 2;
		});
		assertThat(fixture().status(retry)).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().job(retry).lastError()).contains("Lease expired");
		assertThat(fixture().status(last)).isEqualTo(JobStatus.FAILED);
		assertThat(fixture().status(alive)).isEqualTo(JobStatus.RUNNING);
		assertThat(reaped).extracting(ReapedJob::previousOwner).containsOnly("crashed");
		assertThat(reaper.runOnce()).isEmpty();
	}

	@Test
	default void jobWhoseWorkerIsLostMaxCrashesTimesFailsWhateverAttemptsRemain() {
		long id = fixture().queue().enqueue(Job.of("poison", null).maxAttempts(10));
		JobStore store = fixture().store();
		Reaper reaper = fixture().reaper(store);
		// A handler failure is retried, and is not a crash.
		JobRecord first = claim("default", 1, "poison").get(0);
		assertThat(store.reschedule(new Lease(id, first.leaseToken()), "an ordinary failure", Duration.ZERO)).isTrue();
		assertThat(fixture().job(id).crashes()).isZero();
		for (int crash = 1; crash <= Reaper.DEFAULT_MAX_CRASHES; crash++) {
			assertThat(store.claim(new ClaimRequest("doomed-" + crash, "default", List.of("poison"), 1, 1))).hasSize(1);
			List<ReapedJob> reaped = new ArrayList<>();
			await().atMost(WAIT).until(() -> reaped.addAll(reaper.runOnce()));
			assertThat(reaped).extracting(ReapedJob::crashes).containsExactly(crash);
			assertThat(fixture().job(id).crashes()).isEqualTo(crash);
		}
		JobRecord job = fixture().job(id);
		assertThat(job.status()).isEqualTo(JobStatus.FAILED);
		assertThat(job.attempts()).isEqualTo(1 + Reaper.DEFAULT_MAX_CRASHES).isLessThan(job.maxAttempts());
		assertThat(job.lastError()).startsWith("Worker lost 3 times (lease expired before the attempt finished")
			.contains("sqlqueue.retry.max-crashes is 3");
		assertThat(fixture().listener().events("reaped"))
			.containsExactly("reaped poison requeued", "reaped poison requeued", "reaped poison failed");
		// An operator's retry brings a fresh budget of attempts and crashes.
		assertThat(fixture().queue().retry(id)).isTrue();
		assertThat(fixture().job(id).crashes()).isZero();
	}

	@Test
	default void jobWhoseInstanceLostTheDatabaseIsReapedAndRerunElsewhereAndTheLateCompletionIsFenced() throws Exception {
		CountDownLatch firstAttemptRunning = new CountDownLatch(1);
		CountDownLatch finishFirstAttempt = new CountDownLatch(1);
		List<String> runs = Collections.synchronizedList(new ArrayList<>());
		handler("slow", (payload, context) -> {
			runs.add("attempt " + context.attempt());
			if (context.attempt() == 1) {
				firstAttemptRunning.countDown();
				finishFirstAttempt.await(30, TimeUnit.SECONDS);
				return "first";
			}
			return "second";
		});
		try (HikariDataSource firstPool = isolatedDatabase().newDataSource(8)) {
			SwitchableDataSource firstConnection = new SwitchableDataSource(firstPool);
			Manager first = fixture().startInstance((s) -> s.leaseDuration(Duration.ofMillis(900)),
					firstConnection);
			long id = fixture().queue().enqueue("slow", null);
			assertThat(firstAttemptRunning.await(30, TimeUnit.SECONDS)).isTrue();
			first.wakeUp(Set.of());
			firstConnection.cut();
			Reaper reaper = fixture().reaper(fixture().store());
			await().atMost(WAIT).until(() -> !reaper.runOnce().isEmpty());
			Manager second = fixture().startManager((s) -> s);
			awaitStatus(id, JobStatus.SUCCEEDED);
			assertThat(fixture().job(id).result()).isEqualTo("\"second\"");
			firstConnection.restore();
			finishFirstAttempt.countDown();
			await().atMost(WAIT).until(() -> first.leaseLosses() >= 1);
			assertThat(first.leaseLosses()).isEqualTo(1);
			assertThat(second.leaseLosses()).isZero();
			JobRecord job = fixture().job(id);
			assertThat(job.status()).isEqualTo(JobStatus.SUCCEEDED);
			assertThat(job.result()).isEqualTo("\"second\"");
			assertThat(job.attempts()).isEqualTo(2);
			assertThat(runs).containsExactly("attempt 1", "attempt 2");
			assertThat(fixture().listener().events("lease lost")).containsExactly("lease lost slow");
			assertThat(fixture().listener().events("reaped")).containsExactly("reaped slow requeued");
			first.stop();
		}
	}

	@Test
	default void managerSurvivesLosingTheDatabaseAndCarriesOn() {
		handler("work", (payload, context) -> null);
		try (HikariDataSource pool = isolatedDatabase().newDataSource(8)) {
			SwitchableDataSource connection = new SwitchableDataSource(pool);
			fixture().startInstance((s) -> s, connection);
			long before = fixture().queue().enqueue("work", null);
			awaitStatus(before, JobStatus.SUCCEEDED);
			connection.cut();
			long during = fixture().queue().enqueue("work", null);
			await().pollDelay(Duration.ofMillis(300)).atMost(WAIT).until(() -> connection.refusals() > 0);
			assertThat(fixture().status(during)).isEqualTo(JobStatus.QUEUED);
			connection.restore();
			awaitStatus(during, JobStatus.SUCCEEDED);
		}
	}

	@Test
	default void jobContextExtendsTheLease() {
		handler("long", (payload, context) -> {
			JobRecord before = fixture().job(context.jobId());
			// The extension's expiry is the database's clock plus the lease: that clock must have moved.
			awaitDatabaseClockPast(databaseNow());
			context.extendLease();
			JobRecord after = fixture().job(context.jobId());
			return after.leaseExpiresAt().isAfter(before.leaseExpiresAt());
		});
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue("long", null);
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(fixture().job(id).result()).isEqualTo("true");
	}

	// --- faults: frozen workers and transactions

	/**
	 * A job claimed ahead of its worker, whose lease ran out while the worker was stuck (here:
	 * the database unreachable, so no heartbeat landed) and which another instance then ran,
	 * is never started by the stuck worker when it comes free.
	 */
	@Test
	default void claimedJobWhoseLeaseMayHaveRunOutIsNeverStarted() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		AtomicBoolean firstSlow = new AtomicBoolean(true);
		AtomicInteger victimRuns = new AtomicInteger();
		try (HikariDataSource stuckPool = isolatedDatabase().newDataSource(8);
				HikariDataSource otherPool = isolatedDatabase().newDataSource(8)) {
			SwitchableDataSource connection = new SwitchableDataSource(stuckPool);
			handler("warm", (payload, context) -> null);
			handler("slow", (payload, context) -> {
				if (firstSlow.getAndSet(false)) {
					connection.cut();
					release.await(60, TimeUnit.SECONDS);
				}
				return null;
			});
			handler("victim", (payload, context) -> victimRuns.incrementAndGet());
			Manager stuck = fixture().startInstance(
					(s) -> s.defaultConcurrency(1).leaseDuration(Duration.ofSeconds(1)), connection);
			// Enough fast jobs that the lane's smoothed attempt time is short (prefetch room), even
			// when the first attempt, on a cold JVM of a busy machine, took a second or more: each
			// attempt weighs a tenth, so 60 leave a thousandth of the first one's time.
			List<Long> warm = fixture().queue().enqueueAll(java.util.stream.IntStream.range(0, 60)
				.mapToObj((i) -> Job.of("warm", i)).toList());
			await().atMost(WAIT).until(() -> fixture().status(warm.get(59)) == JobStatus.SUCCEEDED);
			// Fast jobs so far: the lane claims both at once, the victim waiting behind the slow job.
			List<Long> ids = fixture().queue().enqueueAll(List.of(Job.of("slow", 1), Job.of("victim", 2)));
			long victim = ids.get(1);
			await().atMost(WAIT).until(() -> fixture().status(victim) == JobStatus.RUNNING);
			Reaper reaper = fixture().reaper(fixture().store());
			await().atMost(WAIT).until(() -> reaper.runOnce().stream().anyMatch((job) -> job.id() == victim));
			fixture().startInstance((s) -> s, otherPool);
			awaitStatus(victim, JobStatus.SUCCEEDED);
			assertThat(victimRuns).hasValue(1);
			connection.restore();
			release.countDown();
			await().atMost(WAIT).until(() -> stuck.busyWorkers().values().stream().allMatch((busy) -> busy == 0));
			assertThat(victimRuns).hasValue(1);
			fixture().close();
		}
	}

	/**
	 * Jobs claimed ahead of a busy worker whose claim the database then lost (as a failover
	 * loses a claim that had not reached the standby: here, another connection makes their
	 * leases expire and a reaper re-queues them) and which another instance runs: once this
	 * instance's heartbeat found their leases lost, none of them starts here, though by this
	 * JVM's clock their leases would still hold for most of a minute.
	 */
	@Test
	default void claimedAheadJobWhoseLeaseTheHeartbeatFoundLostIsNeverStarted() throws Exception {
		CountDownLatch slowRunning = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		AtomicBoolean firstSlow = new AtomicBoolean(true);
		java.util.Map<Long, AtomicInteger> runs = new java.util.concurrent.ConcurrentHashMap<>();
		try (HikariDataSource otherPool = isolatedDatabase().newDataSource(8)) {
			handler("warm", (payload, context) -> null);
			handler("slow", (payload, context) -> {
				if (firstSlow.getAndSet(false)) {
					slowRunning.countDown();
					release.await(60, TimeUnit.SECONDS);
				}
				return null;
			});
			handler("ahead", (payload, context) -> runs.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger())
				.incrementAndGet());
			// Room for the slow job and the three behind it, no more: this instance does not claim
			// them again once they are re-queued.
			Manager busy = fixture().startManager(
					(s) -> s.defaultConcurrency(1).prefetch(3).leaseDuration(Duration.ofSeconds(60)));
			// Fast jobs first, so that the lane claims ahead of its one worker (see the test above).
			List<Long> warm = fixture().queue().enqueueAll(java.util.stream.IntStream.range(0, 60)
				.mapToObj((i) -> Job.of("warm", i)).toList());
			await().atMost(WAIT).until(() -> fixture().status(warm.get(59)) == JobStatus.SUCCEEDED);
			List<Job> jobs = new ArrayList<>(List.of(Job.of("slow", 0)));
			java.util.stream.IntStream.range(1, 4).forEach((i) -> jobs.add(Job.of("ahead", i)));
			List<Long> ids = fixture().queue().enqueueAll(jobs);
			List<Long> ahead = ids.subList(1, ids.size());
			assertThat(slowRunning.await(30, TimeUnit.SECONDS)).isTrue();
			await().atMost(WAIT).until(() -> ahead.stream().allMatch((id) -> fixture().status(id) == JobStatus.RUNNING));
			// The claim is lost: the rows' leases end, and the reaper re-queues them.
			for (long id : ahead) {
				fixture().jdbc().update("UPDATE " + table("queue_job") + " SET lease_expires_at = run_at WHERE id = ?",
						id);
			}
			Reaper reaper = fixture().reaper(fixture().store());
			List<ReapedJob> reaped = new ArrayList<>();
			await().atMost(WAIT).until(() -> {
				reaped.addAll(reaper.runOnce());
				return reaped.size() == ahead.size();
			});
			fixture().startInstance((s) -> s, otherPool);
			ahead.forEach((id) -> awaitStatus(id, JobStatus.SUCCEEDED));
			busy.heartbeat().runOnce();
			assertThat(busy.leaseLosses()).isEqualTo(ahead.size());
			release.countDown();
			awaitStatus(ids.get(0), JobStatus.SUCCEEDED);
			busy.stop();
			assertThat(ahead).allSatisfy((id) -> assertThat(runs.get(id)).as("runs of job %d", id).hasValue(1));
			assertThat(ahead).allSatisfy((id) -> assertThat(fixture().job(id).attempts()).isEqualTo(2));
		}
	}

	/**
	 * A claim whose commit landed but whose answer was lost (the connection cut at commit, as
	 * in a failover): the instance cannot know it holds those jobs, so none of them starts
	 * there; the reaper re-queues them once their leases expire, and they run once.
	 */
	@Test
	default void jobsOfAClaimWhoseCommitCouldNotBeConfirmedNeverStart() {
		java.util.Map<Long, AtomicInteger> runs = new java.util.concurrent.ConcurrentHashMap<>();
		handler("counted", (payload, context) -> runs.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger())
			.incrementAndGet());
		AtomicBoolean loseAnswer = new AtomicBoolean(true);
		JobStore store = new JobStore(isolatedDatabase().dataSource(), isolatedDatabase().dialect(),
				isolatedDatabase().schema(), fixture().claimMethod(), null, io.sqlqueue.internal.flow.FlowClaim::new) {
			@Override
			public io.sqlqueue.internal.store.ClaimResult claimJobs(ClaimRequest request) {
				io.sqlqueue.internal.store.ClaimResult claimed = super.claimJobs(request);
				if (!claimed.jobs().isEmpty() && loseAnswer.getAndSet(false)) {
					throw new org.springframework.dao.TransientDataAccessResourceException(
							"The connection was lost at commit: the claim's outcome is unknown");
				}
				return claimed;
			}
		};
		List<Long> ids = fixture().queue().enqueueAll(List.of(Job.of("counted", 1), Job.of("counted", 2)));
		Manager manager = fixture().startManager(store, io.sqlqueue.test.QueueFixture.fastSettings()
			.leaseDuration(Duration.ofSeconds(1))
			.heartbeatInterval(Duration.ofMillis(200))
			.build(), 4);
		await().atMost(WAIT).until(() -> !loseAnswer.get());
		assertThat(ids).allSatisfy((id) -> assertThat(fixture().status(id)).isEqualTo(JobStatus.RUNNING));
		assertThat(runs).isEmpty();
		Reaper reaper = fixture().reaper(fixture().store());
		List<ReapedJob> reaped = new ArrayList<>();
		await().atMost(WAIT).until(() -> {
			reaped.addAll(reaper.runOnce());
			return reaped.size() == ids.size();
		});
		ids.forEach((id) -> awaitStatus(id, JobStatus.SUCCEEDED));
		manager.stop();
		assertThat(ids).allSatisfy((id) -> assertThat(runs.get(id)).as("runs of job %d", id).hasValue(1));
		assertThat(ids).allSatisfy((id) -> assertThat(fixture().job(id).attempts()).isEqualTo(2));
	}

	/**
	 * A worker frozen inside a transaction holds its row locks: the reaper passes over that
	 * row instead of waiting for it, and re-queues the frozen worker's other jobs.
	 */
	@Test
	default void reaperPassesOverARowLockedByAFrozenTransaction() throws Exception {
		assumeTrue(isolatedDatabase().database() != TestDatabase.SQLITE,
				"SQLite has no row locks: an open write transaction holds the whole database");
		List<Long> ids = fixture().queue().enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2)));
		List<JobRecord> claimed = fixture().store()
			.claim(new ClaimRequest("frozen", "default", List.of("work"), 2, 1));
		assertThat(claimed).hasSize(2);
		long locked = ids.get(0);
		try (OpenTransaction<Integer> frozen = OpenTransaction.begin(isolatedDatabase().dataSource(),
				() -> fixture().jdbc().update("UPDATE " + fixture().table()
						+ " SET version = version WHERE id = ?", locked))) {
			assertThat(frozen.result()).isEqualTo(1);
			Reaper reaper = fixture().reaper(fixture().store());
			await().atMost(WAIT).until(() -> CompletableFuture.supplyAsync(reaper::runOnce)
				.get(5, TimeUnit.SECONDS)
				.stream()
				.anyMatch((job) -> job.id() == ids.get(1)));
			assertThat(fixture().status(ids.get(1))).isEqualTo(JobStatus.QUEUED);
			assertThat(fixture().status(locked)).isEqualTo(JobStatus.RUNNING);
		}
		assertThat(fixture().reaper(fixture().store()).runOnce()).extracting(ReapedJob::id).containsExactly(locked);
	}

	/**
	 * A caller's transaction that enqueues a job after others (the documented way) locks their
	 * rows until it ends: here a queued job past its deadline and a running job of a dead
	 * worker. The reaper's pass, deadline sweep included, passes over both instead of waiting,
	 * and reaps another job whose lease expired meanwhile at once; once the caller commits,
	 * the next pass ends the two held ones too.
	 */
	@Test
	default void reaperReapsOtherJobsWhileACallersTransactionHoldsAnExpiredAndAPassedDeadlineJob() throws Exception {
		assumeTrue(isolatedDatabase().database() != TestDatabase.SQLITE,
				"SQLite has no row locks: an open write transaction holds the whole database");
		long pastDeadline = fixture().queue()
			.enqueue(Job.of("nobody.handles.this", null).deadline(Instant.parse("2000-01-01T00:00:00Z")));
		long heldRunning = fixture().queue().enqueue("work", 1);
		assertThat(fixture().store().claim(new ClaimRequest("dead", "default", List.of("work"), 1, 1)))
			.extracting(JobRecord::id).containsExactly(heldRunning);
		Reaper reaper = fixture().reaper(fixture().store());
		try (OpenTransaction<Long> caller = OpenTransaction.begin(isolatedDatabase().dataSource(),
				() -> fixture().queue().enqueue(Job.of("next", null).after(pastDeadline, heldRunning)))) {
			long dependent = caller.result();
			long other = fixture().queue().enqueue("work", 2);
			assertThat(fixture().store().claim(new ClaimRequest("dead", "default", List.of("work"), 1, 1)))
				.extracting(JobRecord::id).containsExactly(other);
			List<Long> reaped = new ArrayList<>();
			await().atMost(WAIT).until(() -> {
				// One pass as the reaper's loop makes it, bounded so that a wait on the caller's rows fails.
				CompletableFuture<List<Long>> pass = CompletableFuture.supplyAsync(() -> {
					List<Long> ids = new ArrayList<>(reaper.runOnce().stream().map(ReapedJob::id).toList());
					assertThat(reaper.expireOnce()).as("the job past its deadline is held").isEmpty();
					return ids;
				});
				reaped.addAll(pass.get(5, TimeUnit.SECONDS));
				return reaped.contains(other);
			});
			assertThat(reaped).doesNotContain(heldRunning);
			assertThat(fixture().status(other)).isEqualTo(JobStatus.QUEUED);
			assertThat(fixture().status(heldRunning)).isEqualTo(JobStatus.RUNNING);
			assertThat(fixture().status(pastDeadline)).isEqualTo(JobStatus.QUEUED);
			caller.commit();
			assertThat(reaper.expireOnce()).extracting(io.sqlqueue.ExpiredJob::id).containsExactly(pastDeadline);
			assertThat(reaper.runOnce()).extracting(ReapedJob::id).containsExactly(heldRunning);
			assertThat(fixture().status(pastDeadline)).isEqualTo(JobStatus.CANCELLED);
			assertThat(fixture().status(heldRunning)).isEqualTo(JobStatus.QUEUED);
			assertThat(fixture().status(dependent)).isEqualTo(JobStatus.CANCELLED);
		}
	}

}
