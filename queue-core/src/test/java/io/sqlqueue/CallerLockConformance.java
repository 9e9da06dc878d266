package io.sqlqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.dao.PessimisticLockingFailureException;

import io.sqlqueue.flow.Limit;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.JobInvoker;
import io.sqlqueue.internal.maintenance.Pruner;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.maintenance.ScheduleFirer;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.schedule.DefaultSchedules;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.internal.store.ScheduleStore;
import io.sqlqueue.schedule.OverlapPolicy;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleDefinition;
import io.sqlqueue.schedule.Schedules;
import io.sqlqueue.test.OpenTransaction;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A caller's open transaction that holds one row of the queue's tables holds back only what
 * needs that very row (docs/locking.md): while it is open, the instance still claims and runs
 * jobs of limited and unlimited queues, extends its leases, reaps a dead worker's job, fires
 * schedules and prunes. One test per kind of row a caller's transaction can hold through the
 * documented API (or, for rows the API never locks in a caller's transaction, by a plain
 * locking read, as any SQL of the application could). SQLite has no row locks: a caller's
 * open write transaction holds the whole database there, and the busy timeout bounds it.
 * Run by every {@link QueueConformanceTests}.
 */
interface CallerLockConformance extends ConformanceSupport {

	/**
	 * The lease of the instance's jobs: short, so that a heartbeat that stalls shows in
	 * seconds, and long enough that a busy machine's pauses do not lose it (1.2 s did, once).
	 */
	Duration LEASE = Duration.ofSeconds(2);

	/** A queued job of a limited queue, locked by a caller that enqueues a job after it. */
	@Test
	default void aQueuedJobOfALimitedQueueHeldByACallerHoldsBackNothingElse() throws Exception {
		assumeRowLocks();
		Instance instance = new Instance(fixture(), isolatedDatabase());
		Duration delay = Duration.ofSeconds(2);
		long due = System.nanoTime() + delay.toNanos();
		long held = fixture().queue().enqueue(Job.of("limited", "held").queue("limited").delay(delay));
		try (OpenTransaction<Long> caller = enqueueAfter(held)) {
			long dependent = caller.result();
			instance.start();
			// Once the held job is due, the limited claim reads it first: it must pass over it.
			await().atMost(WAIT).until(() -> System.nanoTime() - due > 0);
			instance.carriesOn(null);
			assertThat(fixture().status(held)).isEqualTo(JobStatus.QUEUED);
			caller.commit();
			instance.awaitRan(held);
			instance.awaitRan(dependent);
		}
		instance.stop();
	}

	/** A running job of the instance, locked by a caller that enqueues a job after it. */
	@Test
	default void aRunningJobHeldByACallerHoldsBackNothingElse() throws Exception {
		assumeRowLocks();
		assumeTheDatabasesOwnClaimMethod();
		Instance instance = new Instance(fixture(), isolatedDatabase());
		instance.start();
		long held = fixture().queue().enqueue(Job.of("slow", "held"));
		await().atMost(WAIT).until(() -> instance.runs(held) == 1);
		Long token = fixture().job(held).leaseToken();
		try (OpenTransaction<Long> caller = enqueueAfter(held)) {
			long dependent = caller.result();
			// Held for longer than its lease: the heartbeat cannot extend it meanwhile.
			instance.carriesOn(null);
			caller.commit();
			// As the caller lets go, the lease is extended before the reaper (every 200 ms) can take it.
			await().pollDelay(Duration.ofMillis(1_000)).atMost(WAIT).until(() -> true);
			JobRecord job = fixture().job(held);
			assertThat(job.leaseToken()).as("the held job's lease, never reaped").isEqualTo(token);
			assertThat(job.attempts()).isEqualTo(1);
			instance.releaseSlowJobs();
			instance.awaitRan(dependent);
			assertThat(instance.runs(held)).as("the held job ran once: it was never reaped").isEqualTo(1);
		}
		instance.stop();
	}

	/**
	 * A caller's transaction that enqueues a job after every running job of the instance (a
	 * fan-in, as docs/workflows.md shows) holds all their rows, for longer than their leases.
	 * The heartbeat writes those leases' expiry beside the rows, holding no connection per held
	 * row: on a pool of Spring Boot's default size (10) with 8 workers, the instance's
	 * connections stay few and none is waited for, a job of another queue runs at once, and
	 * when the caller commits no held job is reaped: each keeps its first lease and runs once.
	 */
	@Test
	default void aCallerHoldingEveryRunningJobsRowLeavesThePoolUsable() throws Exception {
		assumeRowLocks();
		assumeTheDatabasesOwnClaimMethod();
		int workers = 8;
		CountDownLatch release = new CountDownLatch(1);
		Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
		JobInvoker counted = (payload, context) -> {
			runs.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger()).incrementAndGet();
			return null;
		};
		fixture().register(HandlerDefinition.of("fanned", "fan", (payload, context) -> {
			counted.invoke(payload, context);
			release.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
			return null;
		}));
		fixture().register(HandlerDefinition.of("other", "other", counted));
		try (com.zaxxer.hikari.HikariDataSource pool = isolatedDatabase().newFixedDataSource(10)) {
			fixture().startInstance((settings) -> settings.leaseDuration(LEASE).defaultConcurrency(workers), pool);
			Reaper reaper = new Reaper(fixture().newStore(pool), fixture().scheduler(), Duration.ofMillis(200),
					JobListener.NONE);
			reaper.start();
			List<Long> held = new ArrayList<>();
			for (int i = 0; i < workers; i++) {
				held.add(fixture().queue().enqueue(Job.of("fanned", i).queue("fan")));
			}
			await().atMost(WAIT).until(() -> held.stream().allMatch((id) -> runs.containsKey(id))
					&& pool.getHikariPoolMXBean().getTotalConnections() == 10);
			Map<Long, Long> tokens = new java.util.HashMap<>();
			held.forEach((id) -> tokens.put(id, fixture().job(id).leaseToken()));
			try (OpenTransaction<Long> caller = OpenTransaction.begin(isolatedDatabase().dataSource(),
					() -> fixture().queue().enqueue(Job.of("other", "fan-in").queue("other").after(held.stream().mapToLong(Long::longValue).toArray())))) {
				long fanIn = caller.result();
				held.forEach((id) -> assertHeld("queue_job", "id = " + id));
				AtomicInteger mostActive = new AtomicInteger();
				AtomicInteger mostWaiting = new AtomicInteger();
				long since = System.nanoTime();
				long other = fixture().queue().enqueue(Job.of("other", "unrelated").queue("other"));
				// Held past two leases, the pool sampled all along.
				await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> {
					mostActive.accumulateAndGet(pool.getHikariPoolMXBean().getActiveConnections(), Math::max);
					mostWaiting.accumulateAndGet(pool.getHikariPoolMXBean().getThreadsAwaitingConnection(), Math::max);
					return System.nanoTime() - since > 2 * LEASE.toNanos() && runs.containsKey(other);
				});
				assertThat(mostWaiting.get()).as("threads that waited for one of the pool's connections").isZero();
				assertThat(mostActive.get()).as("the instance's connections in use while %d rows are held", workers)
					.isLessThanOrEqualTo(4);
				assertThat(runs).doesNotContainKey(fanIn);
				caller.commit();
				// At once, before the next beat extends the rows: their own leases ran out, not those beside them.
				assertThat(reaper.runOnce()).as("jobs reaped as the caller let go").isEmpty();
				for (long id : held) {
					JobRecord job = fixture().job(id);
					assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
					assertThat(job.leaseToken()).as("job %d's lease, never reaped", id).isEqualTo(tokens.get(id));
					assertThat(job.attempts()).isEqualTo(1);
				}
				release.countDown();
				await().atMost(WAIT).until(() -> runs.containsKey(fanIn)
						&& fixture().count("id = " + fanIn + " AND status = 'SUCCEEDED'") == 1);
			}
			finally {
				release.countDown();
				reaper.stop();
			}
			held.forEach((id) -> assertThat(runs.get(id)).as("job %d ran once", id).hasValue(1));
			assertThat(fixture().count("status = 'SUCCEEDED' AND queue = 'fan'")).isEqualTo(workers);
		}
	}

	/** A finished job past its retention, locked by a caller that enqueues a job after it. */
	@Test
	default void aFinishedDependencyHeldByACallerHoldsBackNothingElse() throws Exception {
		assumeRowLocks();
		assumeTheDatabasesOwnClaimMethod();
		Instance instance = new Instance(fixture(), isolatedDatabase());
		long held = fixture().queue().enqueue(Job.of("work", "held"));
		instance.start();
		instance.awaitRan(held);
		try (OpenTransaction<Long> caller = enqueueAfter(held)) {
			long dependent = caller.result();
			instance.carriesOn(null);
			caller.commit();
			instance.awaitRan(dependent);
		}
		instance.stop();
	}

	/** A batch's row, held by a caller's locking read while its job ends. */
	@Test
	default void aBatchRowHeldByACallerHoldsBackNothingElse() throws Exception {
		assumeRowLocks();
		assumeTheDatabasesOwnClaimMethod();
		Instance instance = new Instance(fixture(), isolatedDatabase());
		BatchIds batch = fixture().queue()
			.enqueue(Batch.of(List.of(Job.of("work", "member"))).callback(Job.of("work", "callback")));
		String row = "id = " + batch.batchId();
		try (OpenTransaction<Integer> caller = OpenTransaction.begin(isolatedDatabase().dataSource(),
				() -> lockRow("queue_batch", row))) {
			assertThat(caller.result()).isEqualTo(1);
			assertHeld("queue_batch", row);
			instance.start();
			// The member's end must count in the batch's row, so it waits; nothing else does.
			await().atMost(WAIT).until(() -> instance.runs(batch.jobIds().get(0)) == 1);
			instance.carriesOn(null);
			caller.commit();
			instance.awaitRan(batch.callbackId());
		}
		instance.stop();
	}

	/** A due schedule's row, held by a caller that pauses the schedule in its transaction. */
	@Test
	default void aScheduleRowHeldByACallerHoldsBackNothingElse() throws Exception {
		assumeRowLocks();
		assumeTheDatabasesOwnClaimMethod();
		Instance instance = new Instance(fixture(), isolatedDatabase());
		instance.schedules.create(ScheduleDefinition.of("held", "work", Recurrence.every(Duration.ofSeconds(1))));
		try (OpenTransaction<Boolean> caller = OpenTransaction.begin(isolatedDatabase().dataSource(),
				() -> instance.schedules.pause("held"))) {
			assertThat(caller.result()).isTrue();
			assertHeld("queue_schedule", "name = 'held'");
			instance.start();
			instance.carriesOn(null);
			caller.commit();
		}
		assertThat(instance.schedules.find("held").orElseThrow().paused()).isTrue();
		instance.stop();
	}

	/**
	 * A limited queue's flow row, held by a caller's locking read (a change of limits commits
	 * on its own, apart from the caller's transaction, so only the application's own SQL can).
	 */
	@Test
	default void aFlowRowHeldByACallerHoldsBackOnlyItsQueue() throws Exception {
		assumeRowLocks();
		Instance instance = new Instance(fixture(), isolatedDatabase());
		instance.start();
		String row = "queue = 'limited'";
		try (OpenTransaction<Integer> caller = OpenTransaction.begin(isolatedDatabase().dataSource(),
				() -> lockRow("queue_flow", row))) {
			assertThat(caller.result()).isEqualTo(1);
			assertHeld("queue_flow", row);
			long waits = fixture().queue().enqueue(Job.of("limited", "waits").queue("limited"));
			instance.carriesOn("limited");
			caller.commit();
			instance.awaitRan(waits);
		}
		instance.stop();
	}

	/**
	 * A running job whose row a caller holds outlives its timeout: the timeout sweep's write
	 * of its failure waits for that row, for a bounded time, and the sweep goes on failing and
	 * interrupting the instance's other timed-out jobs meanwhile.
	 */
	@Test
	default void aTimedOutJobHeldByACallerHoldsBackNoOtherTimeout() throws Exception {
		assumeRowLocks();
		assumeTheDatabasesOwnClaimMethod();
		Set<Long> interrupted = ConcurrentHashMap.newKeySet();
		JobInvoker hangs = (payload, context) -> {
			try {
				Thread.sleep(WAIT.toMillis());
			}
			catch (InterruptedException ex) {
				interrupted.add(context.jobId());
				throw ex;
			}
			return null;
		};
		fixture().register(new HandlerDefinition("hangs", "default", 1, Duration.ofMillis(300), Set.of(), hangs,
				"hangs"));
		fixture().register(new HandlerDefinition("hangs.longer", "default", 1, Duration.ofSeconds(2), Set.of(), hangs,
				"hangs.longer"));
		fixture().register(HandlerDefinition.of("work", "default", (payload, context) -> null));
		fixture().startManager((settings) -> settings.leaseDuration(Duration.ofSeconds(3)));
		long held = fixture().queue().enqueue(Job.of("hangs.longer", "held"));
		await().atMost(WAIT).until(() -> fixture().status(held) == JobStatus.RUNNING);
		try (OpenTransaction<Long> caller = enqueueAfter(held)) {
			// Past its timeout the sweep writes its failure, which waits for the caller's row. Time
			// must pass: the sweep's write, waiting, shows nothing to wait for (its interrupt follows it).
			Thread.sleep(2_500);
			assertThat(fixture().status(held)).isEqualTo(JobStatus.RUNNING);
			long other = fixture().queue().enqueue(Job.of("hangs", "other"));
			await().atMost(WAIT).until(() -> interrupted.contains(other));
			await().atMost(WAIT).until(() -> fixture().status(other) == JobStatus.FAILED);
			caller.commit();
			// Its failure was written once the caller's transaction ended, or, where every try
			// of the write came while it was open, its lease runs out and the reaper ends it.
			Reaper reaper = fixture().reaper(fixture().store());
			await().atMost(WAIT).until(() -> {
				reaper.runOnce();
				return fixture().status(held) == JobStatus.FAILED;
			});
		}
	}

	/**
	 * The queue's own write of an attempt's failure waits for a running job's row that a
	 * caller's transaction holds a bounded while ({@code JobStore.OWN_LOCK_WAIT}), then
	 * fails as a transient error, to be tried again, instead of holding its thread until
	 * that transaction ends; once it has, the write lands.
	 */
	@Test
	default void anAttemptsFailureWaitsForAHeldRowOnlyABoundedWhile() throws Exception {
		assumeRowLocks();
		assumeTheDatabasesOwnClaimMethod();
		long held = fixture().queue().enqueue(Job.of("work", "held"));
		JobRecord claimed = fixture().store()
			.claim(new ClaimRequest("worker", "default", List.of("work"), 1, 30_000))
			.get(0);
		Lease lease = new Lease(held, claimed.leaseToken());
		try (OpenTransaction<Long> caller = enqueueAfter(held)) {
			CompletableFuture<Boolean> write = CompletableFuture
				.supplyAsync(() -> fixture().store().fail(lease, "failed while held"));
			assertThatThrownBy(() -> write.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
				.hasCauseInstanceOf(PessimisticLockingFailureException.class);
			assertThat(fixture().status(held)).isEqualTo(JobStatus.RUNNING);
		}
		assertThat(fixture().store().fail(lease, "failed once free")).isTrue();
		assertThat(fixture().status(held)).isEqualTo(JobStatus.FAILED);
	}

	/**
	 * A caller's transaction, left open, that enqueues a job ("work") to run after
	 * {@code held}, which locks that job's row, as docs/locking.md documents; its result is the
	 * new job's id.
	 */
	private OpenTransaction<Long> enqueueAfter(long held) throws Exception {
		OpenTransaction<Long> caller = OpenTransaction.begin(isolatedDatabase().dataSource(),
				() -> fixture().queue().enqueue(Job.of("work", "dependent").after(held)));
		try {
			caller.result();
			assertHeld("queue_job", "id = " + held);
			return caller;
		}
		catch (Exception | AssertionError ex) {
			caller.close();
			throw ex;
		}
	}

	/** Only claims depend on the claim method: the tests of other loops run with the database's own. */
	private void assumeTheDatabasesOwnClaimMethod() {
		assumeTrue(fixture().claimMethod() == isolatedDatabase().dialect().claimMethod(),
				"Only the claim depends on the claim method; run with the database's own");
	}

	/** Locks the rows of {@code table} where {@code where}, as any SQL of the application could; returns how many. */
	private int lockRow(String table, String where) {
		return fixture().jdbc().queryForList("SELECT 1 FROM " + table(table) + " WHERE " + where + " FOR UPDATE",
				Integer.class).size();
	}

	/** The caller's transaction really holds the row: another transaction's locking read passes over it. */
	private void assertHeld(String table, String where) {
		assertThat(fixture().jdbc()
			.queryForList("SELECT 1 FROM " + table(table) + " WHERE " + where + " FOR UPDATE SKIP LOCKED", Integer.class))
			.as("the caller's transaction holds the row of %s where %s", table, where)
			.isEmpty();
	}

	/**
	 * One instance as the starter wires it: a Manager serving an unlimited and a limited queue,
	 * a reaper, a schedule firer and a pruner, each on a schedule; and a dead worker's job whose
	 * lease ran out before the instance started. Handlers count their runs by job id, since the
	 * pruner deletes what ended.
	 */
	final class Instance {

		private final QueueFixture fixture;

		private final CountDownLatch slow = new CountDownLatch(1);

		private final Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();

		private final AtomicInteger ticks = new AtomicInteger();

		final Schedules schedules;

		private final Reaper reaper;

		private final ScheduleFirer firer;

		private final Pruner pruner;

		private final long dead;

		private final long slowJob;

		private Manager manager;

		Instance(QueueFixture fixture, TestDatabase.Isolated database) {
			this.fixture = fixture;
			handle("work", "default", (payload, context) -> ran(context));
			handle("limited", "limited", (payload, context) -> ran(context));
			handle("slow", "default", (payload, context) -> {
				ran(context);
				this.slow.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
				return null;
			});
			handle("tick", "default", (payload, context) -> this.ticks.incrementAndGet());
			fixture.flowControl().setLimit("limited", Limit.concurrency(2));
			this.schedules = new DefaultSchedules(new ScheduleStore(database.dataSource(), database.dialect(), database.schema()),
					fixture.queue(), fixture.handlers(), JobListener.NONE);
			this.reaper = new Reaper(fixture.store(), fixture.scheduler(), Duration.ofMillis(200), JobListener.NONE);
			this.firer = new ScheduleFirer(this.schedules, fixture.scheduler(), Duration.ofMillis(200));
			this.pruner = new Pruner(fixture.store(), fixture.scheduler(), Duration.ofMillis(200), Duration.ofMillis(1),
					Duration.ZERO, Duration.ZERO);
			this.dead = fixture.queue().enqueue(Job.of("work", "dead worker's"));
			assertThat(fixture.store().claim(new ClaimRequest("dead-worker", "default", List.of("work"), 1, 1)))
				.extracting(JobRecord::id)
				.containsExactly(this.dead);
			this.slowJob = fixture.queue().enqueue(Job.of("slow", "runs on"));
		}

		private void handle(String name, String queue, JobInvoker invoker) {
			this.fixture.register(HandlerDefinition.of(name, queue, invoker));
		}

		private Object ran(JobContext context) {
			this.runs.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger()).incrementAndGet();
			return null;
		}

		int runs(long id) {
			AtomicInteger count = this.runs.get(id);
			return (count != null) ? count.get() : 0;
		}

		void start() {
			this.manager = this.fixture.startManager((settings) -> settings.leaseDuration(LEASE).defaultConcurrency(8));
			this.reaper.start();
			this.firer.start();
			await().atMost(WAIT).until(() -> runs(this.slowJob) == 1);
		}

		/**
		 * Everything the instance does on rows the caller does not hold: claims and runs jobs
		 * (but those of {@code heldQueue}, whose limits the caller holds), re-queues the dead
		 * worker's job, fires a schedule, prunes, and keeps the slow job's lease.
		 */
		void carriesOn(String heldQueue) {
			this.pruner.start();
			this.schedules.create(ScheduleDefinition.of("tick", "tick", Recurrence.every(Duration.ofSeconds(1)))
				.withOverlap(OverlapPolicy.ALLOW));
			List<Long> jobs = new ArrayList<>(
					this.fixture.queue().enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2), Job.of("work", 3))));
			if (heldQueue == null) {
				jobs.addAll(this.fixture.queue()
					.enqueueAll(List.of(Job.of("limited", 1).queue("limited"), Job.of("limited", 2).queue("limited"),
							Job.of("limited", 3).queue("limited"))));
			}
			long pruned = jobs.get(0);
			jobs.forEach(this::awaitRan);
			awaitRan(this.dead);
			await().atMost(WAIT).until(() -> this.ticks.get() > 0);
			await().atMost(WAIT).until(() -> this.fixture.count("id = " + pruned) == 0);
			// Past two leases more, the slow job still runs on its first attempt: its heartbeat went on.
			long since = System.nanoTime();
			await().atMost(WAIT).until(() -> System.nanoTime() - since > 2 * LEASE.toNanos());
			JobRecord slow = this.fixture.job(this.slowJob);
			assertThat(slow.status()).isEqualTo(JobStatus.RUNNING);
			assertThat(slow.attempts()).as("the slow job's lease never ran out").isEqualTo(1);
			assertThat(runs(this.slowJob)).isEqualTo(1);
		}

		void releaseSlowJobs() {
			this.slow.countDown();
		}

		/** The job ran and its end is written: it is {@code SUCCEEDED}, or pruned since (only ended jobs are). */
		void awaitRan(long id) {
			await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> runs(id) > 0
					&& this.fixture.count("id = " + id + " AND status <> 'SUCCEEDED'") == 0);
		}

		void stop() throws Exception {
			releaseSlowJobs();
			Thread stopping = new Thread(() -> {
				this.firer.stop();
				this.pruner.stop();
				this.reaper.stop();
				this.manager.stop();
			});
			stopping.start();
			stopping.join(WAIT.toMillis());
			assertThat(stopping.isAlive()).as("the instance stops").isFalse();
		}

	}

}
