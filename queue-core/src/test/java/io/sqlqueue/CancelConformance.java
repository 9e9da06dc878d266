package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.EndReasons;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.test.OpenTransaction;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Cancels and deadlines on every database: a cancel reaches a running job wherever it runs
 * and leaves exactly one final state; a job not started by its deadline is cancelled and
 * never starts. {@link QueueConformanceTests} implements this.
 */
interface CancelConformance extends ConformanceSupport {

	// --- cancelling

	@Test
	default void cancelOfARunningJobInterruptsItsHandlerAndTheJobEndsCancelledNeverRetried() throws Exception {
		CountDownLatch running = new CountDownLatch(1);
		AtomicBoolean interrupted = new AtomicBoolean();
		AtomicBoolean sawRequest = new AtomicBoolean();
		AtomicInteger runs = new AtomicInteger();
		handler("long", (payload, context) -> {
			runs.incrementAndGet();
			running.countDown();
			try {
				Thread.sleep(60_000);
			}
			catch (InterruptedException ex) {
				sawRequest.set(context.isCancellationRequested());
				interrupted.set(true);
				throw ex;
			}
			return "finished";
		});
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue(Job.of("long", null).maxAttempts(5));
		assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(fixture().queue().cancel(id)).isTrue();
		JobResult result = fixture().queue().await(id, WAIT);
		assertThat(result.status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(result.error()).isEqualTo(EndReasons.CANCELLED_WHILE_RUNNING);
		await().atMost(WAIT).untilTrue(interrupted);
		assertThat(sawRequest).isTrue();
		JobRecord job = fixture().job(id);
		assertThat(job.cancelRequestedAt()).isNotNull();
		assertThat(job.attempts()).isEqualTo(1);
		assertThat(runs).hasValue(1);
		assertThat(fixture().listener().events("finished long")).containsExactly("finished long cancelled");
		assertThat(fixture().queue().cancel(id)).isFalse();
	}

	@Test
	default void cancelAskedOnAnotherInstanceReachesTheHolderWithinAHeartbeat() throws Exception {
		CountDownLatch running = new CountDownLatch(1);
		AtomicInteger steps = new AtomicInteger();
		handler("steps", (payload, context) -> {
			running.countDown();
			// Cooperative: checks between steps and ignores interrupts.
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
			while (!context.isCancellationRequested() && System.nanoTime() < end) {
				steps.incrementAndGet();
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
			}
			return "stopped at step " + steps.get();
		});
		try (HikariDataSource holding = isolatedDatabase().newDataSource(4);
				HikariDataSource asking = isolatedDatabase().newDataSource(2)) {
			// Heartbeats every 300 ms: that is where the holder learns of the request here.
			fixture().startInstance((s) -> s.leaseDuration(Duration.ofMillis(900)), holding);
			JobQueue elsewhere = fixture().otherInstanceQueue(asking);
			long id = elsewhere.enqueue("steps", null);
			assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
			assertThat(elsewhere.cancel(id)).isTrue();
			JobResult result = elsewhere.await(id, WAIT);
			assertThat(result.status()).isEqualTo(JobStatus.CANCELLED);
			assertThat(result.result(String.class)).isNull();
			int stepsAtCancel = steps.get();
			// Time must pass: a step after the cancel would come with no event to wait for.
			sleepQuietly(100);
			assertThat(steps.get()).isEqualTo(stepsAtCancel);
			assertThat(fixture().job(id).attempts()).isEqualTo(1);
		}
	}

	@Test
	default void cancelThatRacesWithCompletionLeavesExactlyOneFinalState() throws Exception {
		int total = 60;
		Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
		handler("quick", (payload, context) -> {
			runs.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger()).incrementAndGet();
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextInt(3)));
			return "ok";
		});
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < total; i++) {
			jobs.add(Job.of("quick", i).maxAttempts(3));
		}
		List<Long> ids = fixture().queue().enqueueAll(jobs);
		fixture().startManager((s) -> s.defaultConcurrency(8));
		for (long id : ids) {
			await().atMost(WAIT).pollInterval(Duration.ofMillis(1))
				.until(() -> runs.containsKey(id) || fixture().status(id) != JobStatus.QUEUED);
			fixture().queue().cancel(id);
		}
		for (long id : ids) {
			JobStatus status = fixture().queue().await(id, WAIT).status();
			assertThat(status).isIn(JobStatus.SUCCEEDED, JobStatus.CANCELLED);
		}
		assertThat(runs.values()).allSatisfy((count) -> assertThat(count).hasValueLessThanOrEqualTo(1));
		assertThat(fixture().count("attempts > 1 OR status NOT IN ('SUCCEEDED', 'CANCELLED')")).isZero();
		// One final event per job, whoever won.
		List<String> finals = fixture().listener().events().stream()
			.filter((event) -> event.startsWith("finished quick") || event.startsWith("cancelled "))
			.toList();
		assertThat(finals).hasSize(total);
	}

	@Test
	default void aJobWhoseCancelWasAskedForIsNeverQueuedAgain() {
		long failing = fixture().queue().enqueue(Job.of("work", null).maxAttempts(5));
		long unstarted = fixture().queue().enqueue(Job.of("work", null).maxAttempts(5));
		long lost = fixture().queue().enqueue(Job.of("work", null).maxAttempts(5));
		JobStore store = fixture().store();
		Map<Long, JobRecord> claimed = new java.util.HashMap<>();
		claim("default", 2, "work").forEach((job) -> claimed.put(job.id(), job));
		store.claim(new ClaimRequest("crashed", "default", List.of("work"), 1, 1))
			.forEach((job) -> claimed.put(job.id(), job));
		for (long id : List.of(failing, unstarted, lost)) {
			assertThat(store.requestCancel(id)).isTrue();
		}
		// A failure the instance recorded before it heard of the request does not retry it.
		assertThat(store.reschedule(new Lease(failing, claimed.get(failing).leaseToken()), "boom", Duration.ZERO))
			.isTrue();
		assertThat(store.release(new Lease(unstarted, claimed.get(unstarted).leaseToken()))).isTrue();
		Reaper reaper = fixture().reaper(store);
		await().atMost(WAIT).until(() -> !reaper.runOnce().isEmpty());
		for (long id : List.of(failing, unstarted, lost)) {
			assertThat(fixture().status(id)).isEqualTo(JobStatus.CANCELLED);
			assertThat(fixture().job(id).finishedAt()).isNotNull();
		}
		assertThat(fixture().job(lost).lastError()).startsWith(EndReasons.CANCELLED_WHILE_RUNNING);
		assertThat(fixture().listener().events("reaped")).containsExactly("reaped work cancelled");
		assertThat(store.requestCancel(failing)).isFalse();
	}

	// --- deadlines

	@Test
	default void jobNotStartedByItsDeadlineIsCancelledAndNeverStarts() {
		AtomicInteger runs = new AtomicInteger();
		handler("late", (payload, context) -> runs.incrementAndGet());
		long claimedLate = fixture().queue()
			.enqueue(Job.of("late", null).deadline(Instant.parse("2000-01-01T00:00:00Z")));
		long inTime = fixture().queue().enqueue(Job.of("late", null).expireAfter(Duration.ofHours(1)));
		fixture().startManager((s) -> s);
		awaitStatus(claimedLate, JobStatus.CANCELLED);
		awaitStatus(inTime, JobStatus.SUCCEEDED);
		assertThat(runs).hasValue(1);
		JobRecord late = fixture().job(claimedLate);
		assertThat(late.lastError()).isEqualTo("Deadline 2000-01-01T00:00:00Z passed before the job started");
		assertThat(late.deadline()).isEqualTo(Instant.parse("2000-01-01T00:00:00Z"));
		assertThat(fixture().listener().events("finished late")).contains("finished late expired");
		JobRecord ran = fixture().job(inTime);
		assertThat(Duration.between(ran.createdAt(), ran.deadline()).toMillis()).isCloseTo(3_600_000L,
				org.assertj.core.data.Offset.offset(5L));
	}

	@Test
	default void queuedJobsPastTheirDeadlineAreCancelledByTheSweepEvenWithNoHandlerRunning() throws Exception {
		long expiring = fixture().queue().enqueue(Job.of("nobody.handles.this", null)
			.expireAfter(Duration.ofMillis(300)));
		long later = fixture().queue().enqueue(Job.of("nobody.handles.this", null)
			.expireAfter(Duration.ofHours(1)));
		long none = fixture().queue().enqueue("nobody.handles.this", null);
		CompletableFuture<JobResult> awaited = fixture().queue().whenFinished(expiring);
		Reaper reaper = fixture().reaper(fixture().store());
		await().atMost(WAIT).until(() -> !reaper.expireOnce().isEmpty());
		JobResult result = awaited.get(30, TimeUnit.SECONDS);
		assertThat(result.status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(result.error()).startsWith("Deadline ").endsWith(" passed before the job started");
		assertThat(fixture().status(later)).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().status(none)).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().listener().events("expired")).containsExactly("expired default nobody.handles.this");
		assertThat(reaper.expireOnce()).isEmpty();
	}

	@Test
	default void deadlinesOutsideWhatTheDatabasesStoreOrNotInTheFutureAreRejected() {
		assertThatThrownBy(() -> Job.of("work", null).deadline(Instant.parse("0999-12-31T23:59:59Z")))
			.isInstanceOf(InvalidJobException.class).hasMessageContaining("deadline must be from");
		assertThatThrownBy(() -> Job.of("work", null).expireAfter(Duration.ZERO))
			.isInstanceOf(InvalidJobException.class).hasMessage("expireAfter must be more than zero");
		assertThatThrownBy(() -> Job.of("work", null).expireAfter(Duration.ofSeconds(-1)))
			.isInstanceOf(InvalidJobException.class).hasMessageContaining("expireAfter must not be negative");
		assertThat(fixture().count("1 = 1")).isZero();
	}

	/**
	 * Settling the end that the deadline sweep gives a job may need a row that a caller's
	 * transaction holds: here its waiting dependent, after which the caller enqueues a job.
	 * The sweep waits for that row at most {@link JobStore#OWN_LOCK_WAIT}, leaves the job as
	 * it was for the next pass, and ends the other jobs meanwhile.
	 */
	@Test
	default void deadlineSweepLeavesAJobWhoseDependentACallersTransactionHoldsForTheNextPass() throws Exception {
		assumeTrue(isolatedDatabase().database() != TestDatabase.SQLITE,
				"SQLite has no row locks: an open write transaction holds the whole database");
		Instant passed = Instant.parse("2000-01-01T00:00:00Z");
		long held = fixture().queue().enqueue(Job.of("nobody.handles.this", null).deadline(passed));
		long dependent = fixture().queue().enqueue(Job.of("nobody.handles.this", null).after(held));
		long other = fixture().queue().enqueue(Job.of("nobody.handles.this", null).deadline(passed));
		Reaper reaper = fixture().reaper(fixture().store());
		long next;
		try (OpenTransaction<Long> caller = OpenTransaction.begin(isolatedDatabase().dataSource(),
				() -> fixture().queue().enqueue(Job.of("next", null).after(dependent)))) {
			next = caller.result();
			assertThat(CompletableFuture.supplyAsync(reaper::expireOnce).get(5, TimeUnit.SECONDS))
				.extracting(io.sqlqueue.ExpiredJob::id).containsExactly(other);
			assertThat(fixture().status(held)).isEqualTo(JobStatus.QUEUED);
			assertThat(fixture().status(dependent)).isEqualTo(JobStatus.WAITING);
			caller.commit();
		}
		assertThat(reaper.expireOnce()).extracting(io.sqlqueue.ExpiredJob::id).containsExactly(held);
		assertThat(fixture().status(held)).isEqualTo(JobStatus.CANCELLED);
		assertThat(fixture().status(dependent)).isEqualTo(JobStatus.CANCELLED);
		assertThat(fixture().status(next)).isEqualTo(JobStatus.CANCELLED);
	}

}
