package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.JobInvoker;
import io.sqlqueue.internal.maintenance.Pruner;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.manager.ManagerSettings;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.ClaimResult;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.test.GatedJobStore;
import io.sqlqueue.test.QueueFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How the Manager's loops share threads and stop, on every database and claim method:
 * {@link QueueConformanceTests} implements this. A {@link GatedJobStore} holds a loop inside a
 * statement, as a caller's lock would, whatever the database's locking.
 */
interface ManagerLoopsConformance extends ConformanceSupport {

	Duration LOOPS_WAIT = Duration.ofSeconds(30);

	/**
	 * The heartbeat never queues behind the other loops: with the poll loop, a completion
	 * flush, the reaper and the pruner each held inside a statement — as many loops as the
	 * starter's scheduler has threads — a running job's lease is still extended.
	 */
	@Test
	default void heartbeatExtendsLeasesWhileEveryOtherLoopWaits() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		handler("long", (payload, context) -> {
			started.countDown();
			return release.await(60, TimeUnit.SECONDS);
		});
		handler("short", (payload, context) -> null);
		GatedJobStore store = new GatedJobStore(fixture());
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setPoolSize(4);
		scheduler.setThreadNamePrefix("test-shared-");
		scheduler.initialize();
		Manager manager = new Manager(store, fixture().handlers(), fixture().codec(),
				QueueFixture.fastSettings()
					.leaseDuration(Duration.ofMillis(1500))
					.completionLinger(Duration.ofMillis(10))
					.defaultConcurrency(2)
					.build(),
				scheduler, fixture().workerExecutor(2));
		Reaper reaper = new Reaper(store, scheduler, Duration.ofMillis(20));
		Pruner pruner = new Pruner(store, scheduler, Duration.ofMillis(20), Duration.ofHours(1), Duration.ZERO,
				Duration.ZERO);
		try {
			manager.start();
			long running = fixture().queue().enqueue("long", null);
			assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
			store.completions.arm();
			fixture().queue().enqueue("short", null);
			await().atMost(LOOPS_WAIT).until(() -> store.completions.held() == 1);
			store.claims.arm();
			store.reaps.arm();
			store.prunes.arm();
			reaper.start();
			pruner.start();
			fixture().queue().enqueue("short", null);
			await().atMost(LOOPS_WAIT)
				.until(() -> store.claims.held() > 0 && store.reaps.held() > 0 && store.prunes.held() > 0);
			Instant lease = fixture().job(running).leaseExpiresAt();
			await().atMost(Duration.ofSeconds(5))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> fixture().job(running).leaseExpiresAt().isAfter(lease));
			assertThat(fixture().status(running)).isEqualTo(JobStatus.RUNNING);
			assertThat(manager.leaseLosses()).isZero();
		}
		finally {
			store.claims.open();
			store.completions.open();
			store.reaps.open();
			store.prunes.open();
			release.countDown();
			reaper.stop();
			pruner.stop();
			manager.stop();
			scheduler.shutdown();
		}
	}

	/**
	 * A reaper pass that took long (a held horizon makes the lease index's head long to walk)
	 * is followed by the next after ten times as long, not after the interval: unpaced, some
	 * ten passes would follow within the second.
	 */
	@Test
	default void aReaperPassThatTookLongIsFollowedAfterTenTimesAsLong() {
		// Held 400 ms at 200 ms: the next pass 2 s later (ten times 400 ms, capped at ten intervals).
		afterAReaperPassHeld(Duration.ofMillis(200), 400, (passes) -> {
			// Time must pass: an unpaced pass would come with no event to wait for.
			sleepQuietly(1_000);
			assertThat(passes.get()).isEqualTo(1);
		});
	}

	/**
	 * A reaper pass that stalled (a pause, lock waits) delays the next by ten intervals at most,
	 * not by ten times the stall: held a second at a 50 ms interval, the next pass comes about
	 * half a second later, where ten seconds would leave expired leases unreaped that long.
	 */
	@Test
	default void aReaperPassThatStalledDelaysTheNextByTenIntervalsAtMost() {
		afterAReaperPassHeld(Duration.ofMillis(50), 1_000,
				(passes) -> await().atMost(Duration.ofSeconds(4)).until(() -> passes.get() >= 2));
	}

	/**
	 * Runs a reaper at {@code interval} on a scheduler of its own, its first pass held at the
	 * gate for {@code heldMillis}, then {@code check} with the count of its passes.
	 */
	private void afterAReaperPassHeld(Duration interval, long heldMillis, Consumer<AtomicInteger> check) {
		GatedJobStore store = new GatedJobStore(fixture());
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setThreadNamePrefix("test-reaper-");
		scheduler.initialize();
		AtomicInteger passes = new AtomicInteger();
		Reaper reaper = new Reaper(store, scheduler, interval) {

			@Override
			public List<ReapedJob> runOnce() {
				passes.incrementAndGet();
				return super.runOnce();
			}

		};
		store.reaps.arm();
		try {
			reaper.start();
			await().atMost(LOOPS_WAIT).until(() -> store.reaps.held() == 1);
			sleepQuietly(heldMillis);
			store.reaps.open();
			check.accept(passes);
		}
		finally {
			store.reaps.open();
			reaper.stop();
			scheduler.shutdown();
		}
	}

	/**
	 * Stopping waits for every claim under way — a worker's own, made when its lane ran dry,
	 * as well as the poll loop's — and gives back what it claimed: no job starts once
	 * {@code stop()} returned, none is left {@code RUNNING} (the scheduler is shut down after
	 * the Manager, as the application's context does, so a late completion would be lost), and
	 * after a restart every job ran exactly once. The gate holds the workers' claims until
	 * {@code stop()} returned or waited a moment for them.
	 */
	/**
	 * One queue's claim that keeps failing (a statement the database refuses for that queue)
	 * holds back no other queue of the instance: the poll loop claims each queue on its own.
	 */
	@Test
	default void aQueueWhoseClaimsFailHoldsBackNoOtherQueue() throws Exception {
		fixture().register(HandlerDefinition.of("broken", "a-broken", (payload, context) -> null));
		handler("fine", (payload, context) -> null);
		JobStore store = new JobStore(fixture().database().dataSource(), fixture().database().dialect(),
				fixture().database().schema(), fixture().store().claimMethod()) {

			@Override
			public ClaimResult claimJobs(ClaimRequest request) {
				if (request.queue().equals("a-broken")) {
					throw new DataIntegrityViolationException("refused for queue a-broken");
				}
				return super.claimJobs(request);
			}

		};
		fixture().startManager(store, QueueFixture.fastSettings().build(), 8);
		long fine = fixture().queue().enqueue(Job.of("fine", 1));
		await().atMost(LOOPS_WAIT).until(() -> fixture().status(fine) == JobStatus.SUCCEEDED);
	}

	@Test
	default void stopAwaitsTheClaimsOfWorkersAndStartsNothingAfterIt() throws Exception {
		int total = 400;
		Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
		AtomicBoolean stopped = new AtomicBoolean();
		AtomicInteger startedAfterStop = new AtomicInteger();
		handler("short", (payload, context) -> {
			if (stopped.get()) {
				startedAfterStop.incrementAndGet();
			}
			runs.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger()).incrementAndGet();
			return null;
		});
		fixture().queue().enqueueAll(IntStream.range(0, total).mapToObj((i) -> Job.of("short", i)).toList());
		ManagerSettings settings = QueueFixture.fastSettings().defaultConcurrency(4).batchSize(8).build();
		for (int round = 1; round <= 3; round++) {
			GatedJobStore store = new GatedJobStore(fixture());
			ThreadPoolTaskScheduler scheduler = fixture().scheduler();
			ThreadPoolTaskExecutor workers = fixture().workerExecutor(4);
			Manager manager = new Manager(store, fixture().handlers(), fixture().codec(), settings, scheduler,
					workers);
			stopped.set(false);
			store.claims.arm((thread) -> thread.getName().startsWith("test-worker-"));
			manager.start();
			await().atMost(LOOPS_WAIT).until(() -> store.claims.held() > 0);
			CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> {
				manager.stop();
				stopped.set(true);
			});
			try {
				stopping.get(300, TimeUnit.MILLISECONDS);
			}
			catch (TimeoutException ex) {
				// It waits for the held claims, as it should: let them go on.
			}
			store.claims.open();
			stopping.get(30, TimeUnit.SECONDS);
			scheduler.shutdown();
			await().atMost(LOOPS_WAIT)
				.until(() -> store.claims.heldAndPassed() == store.claims.held() && workers.getActiveCount() == 0);
			assertThat(startedAfterStop).as("jobs started after stop() returned, round %d", round).hasValue(0);
			assertThat(fixture().count("status = 'RUNNING'")).as("jobs left RUNNING, round %d", round).isZero();
		}
		fixture().startManager((s) -> s);
		await().atMost(LOOPS_WAIT).until(() -> fixture().count("status = 'SUCCEEDED'") == total);
		assertThat(runs).hasSize(total);
		assertThat(runs.values()).allSatisfy((count) -> assertThat(count).hasValue(1));
	}

	/**
	 * However slow the completion writes, at most twice {@code completion-batch-size} finished
	 * jobs wait to be recorded (one batch written while the next fills), besides one per worker
	 * that waits for room: what a freeze past the lease can run again is bounded so
	 * (docs/guarantees.md, promise 1). The gate holds every write.
	 */
	@Test
	default void atMostABatchOfFinishedJobsWaitsToBeRecorded() throws Exception {
		int workers = 4;
		int batch = 2;
		AtomicInteger returned = new AtomicInteger();
		handler("quick", (payload, context) -> {
			returned.incrementAndGet();
			return null;
		});
		GatedJobStore store = new GatedJobStore(fixture());
		store.completions.arm();
		fixture().startManager(store, QueueFixture.fastSettings()
			.defaultConcurrency(workers)
			.completionBatchSize(batch)
			.completionLinger(Duration.ofMillis(1))
			.build(), workers);
		int total = 20;
		fixture().queue().enqueueAll(IntStream.range(0, total).mapToObj((i) -> Job.of("quick", i)).toList());
		try {
			// Every worker has ended a job and waits for room, or writes a batch (then one less waits).
			await().atMost(LOOPS_WAIT).until(() -> returned.get() >= workers + 2 * batch - 2);
			await("at most workers + 2 batches of finished jobs unrecorded").during(Duration.ofMillis(500))
				.atMost(Duration.ofSeconds(5))
				.until(() -> returned.get() <= workers + 2 * batch);
			assertThat(fixture().count("status = 'SUCCEEDED'")).isZero();
		}
		finally {
			store.completions.open();
		}
		await().atMost(LOOPS_WAIT).until(() -> fixture().count("status = 'SUCCEEDED'") == total);
		assertThat(returned).hasValue(total);
	}

}
