package io.sqlqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.LimitDefinition;
import io.sqlqueue.flow.LimitSource;
import io.sqlqueue.flow.QueueLimits;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.JobInvoker;
import io.sqlqueue.internal.flow.DefaultFlowControl;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.ClaimResult;
import io.sqlqueue.internal.store.FlowStore;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.LimitRow;
import io.sqlqueue.test.ConnectionHooks;
import io.sqlqueue.test.OpenTransaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * Flow control (docs/flow-control.md) as every database and claim method must show it, with
 * real connections, real threads and several instances: limits of a queue and of its
 * concurrency keys hold at every moment across instances, jobs over a limit wait
 * {@code QUEUED}, and limits change at runtime. Run by every {@link QueueConformanceTests}.
 */
interface FlowControlConformance extends ConformanceSupport {

	private FlowControl limits() {
		return fixture().flowControl();
	}

	private void handle(String handler, JobInvoker invoker) {
		fixture().register(HandlerDefinition.of(handler, "default", invoker));
	}

	private ClaimResult claim(int limit, String... handlers) {
		return fixture().store().claimJobs(new ClaimRequest("test-worker", "default", List.of(handlers), limit, 30_000));
	}

	/** A handler that counts how many of its jobs run at once, per concurrency key (as its context tells it) and in all. */
	final class Overlaps implements JobInvoker {

		final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();

		final Map<String, AtomicInteger> most = new ConcurrentHashMap<>();

		final Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();

		@Override
		public Object invoke(String payload, JobContext context) throws Exception {
			runs.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger()).incrementAndGet();
			String key = (context.concurrencyKey() != null) ? context.concurrencyKey() : "unkeyed";
			List<String> counted = List.of(key, "all");
			for (String name : counted) {
				int now = this.running.computeIfAbsent(name, (n) -> new AtomicInteger()).incrementAndGet();
				this.most.computeIfAbsent(name, (n) -> new AtomicInteger()).accumulateAndGet(now, Math::max);
			}
			try {
				// Long enough that the three instances, started one after another, overlap even on
				// a busy machine: the lower bounds below need jobs of one key on two of them at once.
				Thread.sleep(100);
			}
			finally {
				counted.forEach((name) -> this.running.get(name).decrementAndGet());
			}
			return null;
		}

		int most(String key) {
			AtomicInteger most = this.most.get(key);
			return (most != null) ? most.get() : 0;
		}

	}

	@Test
	default void keyConcurrencyHoldsAtEveryMomentAcrossInstances() {
		Overlaps overlaps = new Overlaps();
		handle("sync", overlaps);
		limits().setKeyLimit("default", "customer:*", Limit.concurrency(2));
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 32; i++) {
			String key = "customer:" + (i % 4);
			jobs.add(Job.of("sync", key).concurrencyKey(key));
		}
		jobs.add(Job.of("sync", "unkeyed"));
		fixture().queue().enqueueAll(jobs);
		runOnThreeInstances(jobs.size());
		for (int i = 0; i < 4; i++) {
			assertThat(overlaps.most("customer:" + i)).as("customer:" + i).isBetween(1, 2);
		}
		assertThat(overlaps.most("customer:0") + overlaps.most("customer:1") + overlaps.most("customer:2")
				+ overlaps.most("customer:3")).as("keys that ran two at once").isGreaterThan(4);
		assertThat(overlaps.most("all")).as("keys run beside each other").isGreaterThan(2);
		assertThat(overlaps.runs).hasSize(jobs.size());
		assertThat(overlaps.runs.values()).allSatisfy((runs) -> assertThat(runs).hasValue(1));
	}

	@Test
	default void queueConcurrencyHoldsAcrossInstancesBesideTheirOwnWorkers() {
		Overlaps overlaps = new Overlaps();
		handle("sync", overlaps);
		limits().setLimit("default", Limit.concurrency(3));
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 24; i++) {
			jobs.add(Job.of("sync", "job"));
		}
		fixture().queue().enqueueAll(jobs);
		runOnThreeInstances(jobs.size());
		assertThat(overlaps.most("all")).isEqualTo(3);
		assertThat(overlaps.runs.values()).hasSize(jobs.size()).allSatisfy((runs) -> assertThat(runs).hasValue(1));
		assertThat(fixture().count("attempts <> 1")).isZero();
	}

	/**
	 * Starts counted per window of the database's clock (as the claim stamps them): no window of
	 * the queue's rate holds more than its limit, nor of the key's, with three instances
	 * claiming.
	 */
	@Test
	default void rateLimitsHoldInEveryWindowAcrossInstances() {
		handle("call", (payload, context) -> null);
		limits().setLimit("default", Limit.rate(5, Duration.ofMillis(400)));
		limits().setKeyLimit("default", "api", Limit.rate(2, Duration.ofMillis(400)));
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 16; i++) {
			jobs.add((i % 2 == 0) ? Job.of("call", i).concurrencyKey("api") : Job.of("call", i));
		}
		List<Long> ids = fixture().queue().enqueueAll(jobs);
		runOnThreeInstances(jobs.size());
		Map<Long, Integer> perWindow = new java.util.TreeMap<>();
		Map<Long, Integer> apiPerWindow = new java.util.TreeMap<>();
		for (long id : ids) {
			JobRecord job = fixture().job(id);
			long window = job.startedAt().toEpochMilli() / 400;
			perWindow.merge(window, 1, Integer::sum);
			if ("api".equals(job.concurrencyKey())) {
				apiPerWindow.merge(window, 1, Integer::sum);
			}
		}
		assertThat(perWindow.values()).as("starts per window %s", perWindow).allSatisfy((starts) -> assertThat(starts).isLessThanOrEqualTo(5));
		assertThat(apiPerWindow.values()).as("api starts per window %s", apiPerWindow)
			.allSatisfy((starts) -> assertThat(starts).isLessThanOrEqualTo(2));
		assertThat(apiPerWindow.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(8);
		assertThat(fixture().count("attempts <> 1")).isZero();
	}

	/** One claim: a key at its limit is left behind, and the keys after it still start. */
	@Test
	default void aKeyAtItsLimitHoldsNoOtherKeyBack() {
		limits().setKeyLimit("default", "*", Limit.concurrency(1));
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 300; i++) {
			jobs.add(Job.of("work", i).concurrencyKey("hot"));
		}
		for (int i = 0; i < 10; i++) {
			jobs.add(Job.of("work", i).concurrencyKey("cold-" + i));
		}
		jobs.add(Job.of("work", "free"));
		List<Long> ids = fixture().queue().enqueueAll(jobs);
		ClaimResult first = claim(20, "work");
		List<Long> expected = new ArrayList<>(ids.subList(300, 311));
		expected.add(0, ids.get(0));
		assertThat(first.jobs()).extracting(JobRecord::id).containsExactlyElementsOf(expected);
		assertThat(first.jobs()).allSatisfy((job) -> {
			assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
			assertThat(job.startedAt()).isNotNull();
		});
		assertThat(fixture().count("status = 'RUNNING'")).as("only what it took").isEqualTo(12);
		assertThat(first.heldByConcurrency()).isTrue();
		ClaimResult second = claim(20, "work");
		assertThat(second.jobs()).isEmpty();
		assertThat(second.heldByConcurrency()).isTrue();
		assertThat(limits().throttled()).containsEntry("default", Map.of("key-concurrency", 299L));
	}

	/**
	 * Keys at their rate limit hold no other key back either, however many: a claim reads and
	 * refuses each such key's jobs once, and the claims after it leave those keys out of their
	 * reads until their windows have room. Here 100 keys have used their one start a minute and
	 * each has a job due ahead of five jobs of new keys; a claim of 10 reads at most 70
	 * candidates, so only the second claim reaches the new keys, and only because the first
	 * one's refusals are remembered.
	 */
	@Test
	default void keysAtTheirRateLimitHoldNoOtherKeyBack() {
		limits().setKeyLimit("default", "*", Limit.rate(1, Duration.ofMinutes(1)));
		List<Job> jobs = new ArrayList<>();
		for (int round = 0; round < 2; round++) {
			for (int i = 0; i < 100; i++) {
				jobs.add(Job.of("work", i).concurrencyKey("used-" + i));
			}
		}
		for (int i = 0; i < 5; i++) {
			jobs.add(Job.of("work", i).concurrencyKey("new-" + i));
		}
		List<Long> ids = fixture().queue().enqueueAll(jobs);
		assertThat(claim(100, "work").jobs()).extracting(JobRecord::id).containsExactlyElementsOf(ids.subList(0, 100));
		List<Long> claimed = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			ClaimResult next = claim(10, "work");
			claimed.addAll(next.jobs().stream().map(JobRecord::id).toList());
			assertThat(next.throttledFor()).as("the next start of a used key").isPositive()
				.isLessThanOrEqualTo(Duration.ofMinutes(2));
		}
		assertThat(claimed).containsExactlyElementsOf(ids.subList(200, 205));
		// Every due job's key is left out now, so the claim reads none: it still says when the
		// first of them has room again, or the Manager would wait for its next poll.
		ClaimResult nothingRead = claim(10, "work");
		assertThat(nothingRead.jobs()).isEmpty();
		assertThat(nothingRead.throttledFor()).as("the next start of a key left out").isPositive()
			.isLessThanOrEqualTo(Duration.ofMinutes(2));
		assertThat(limits().throttled()).containsEntry("default", Map.of("key-rate", 100L));
		// A change of the limits forgets the keys left out: raised, their jobs start at once.
		limits().setKeyLimit("default", "*", Limit.rate(2, Duration.ofMinutes(1)));
		assertThat(claim(100, "work").jobs()).extracting(JobRecord::id)
			.containsExactlyElementsOf(ids.subList(100, 200));
	}

	/**
	 * A limited queue with nothing due is polled at the poll interval, like any other: a limit
	 * that capped a claim of nothing once made the loop poll it every 10 ms.
	 */
	@Test
	default void anIdleLimitedQueueIsPolledAtThePollInterval() {
		limits().setLimit("default", Limit.concurrency(2).withRate(1, Duration.ofMinutes(1)));
		handle("work", (payload, context) -> null);
		Duration pollInterval = Duration.ofSeconds(1);
		long started = System.nanoTime();
		fixture().startManager((s) -> s.pollInterval(pollInterval));
		// Polling too often shows only over time: three claims (the first, a poll, and room for
		// one wake-up) are let to take no less than a poll interval; polled every 10 ms, they
		// took 20 ms.
		await().atMost(WAIT).pollInterval(Duration.ofMillis(10)).until(() -> fixture().listener().claims("default") >= 3);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).as("time for three claims at a 1 s poll interval")
			.isGreaterThanOrEqualTo(pollInterval);
	}

	/** A day's period: two claims a moment apart never fall into two windows (a minute's could). */
	@Test
	default void aRateLimitLeavesJobsQueuedAndSaysWhenItHasRoom() {
		limits().setLimit("default", Limit.rate(3, Duration.ofDays(1)));
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			jobs.add(Job.of("work", i));
		}
		fixture().queue().enqueueAll(jobs);
		ClaimResult first = claim(10, "work");
		assertThat(first.jobs()).hasSize(3);
		assertThat(first.throttledFor()).isPositive().isLessThanOrEqualTo(Duration.ofDays(2));
		ClaimResult second = claim(10, "work");
		assertThat(second.jobs()).isEmpty();
		assertThat(second.throttledFor()).isPositive().isLessThanOrEqualTo(Duration.ofDays(2));
		assertThat(fixture().count("status = 'QUEUED' AND attempts = 0 AND last_error IS NULL")).isEqualTo(2);
		assertThat(limits().throttled()).containsEntry("default", Map.of("queue-rate", 2L));
		limits().setLimit("default", Limit.rate(5, Duration.ofDays(1)));
		assertThat(claim(10, "work").jobs()).hasSize(2);
	}

	/**
	 * Jobs over a limit wait QUEUED (not failed, no attempt spent); raising the limit lets more
	 * start, and removing it lets the rest start at once, long before the next poll.
	 */
	@Test
	default void jobsOverALimitWaitAndStartAsSoonAsItIsRaisedOrRemoved() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		handle("block", (payload, context) -> release.await(30, TimeUnit.SECONDS));
		limits().setLimit("default", Limit.concurrency(1));
		fixture().startManager((s) -> s.pollInterval(Duration.ofSeconds(20)));
		fixture().queue().enqueueAll(List.of(Job.of("block", 1), Job.of("block", 2), Job.of("block", 3),
				Job.of("block", 4)));
		try {
			// Woken by the enqueue, long before the next poll (a lost wake-up fails here).
			await().atMost(Duration.ofSeconds(5)).until(() -> fixture().count("status = 'RUNNING'") == 1);
			// Time must pass: a second start under the limit would come with no event to wait for.
			Thread.sleep(300);
			assertThat(fixture().count("status = 'RUNNING'")).isEqualTo(1);
			assertThat(fixture().count("status = 'QUEUED' AND attempts = 0 AND last_error IS NULL")).isEqualTo(3);
			limits().setLimit("default", Limit.concurrency(2));
			await().atMost(Duration.ofSeconds(5)).until(() -> fixture().count("status = 'RUNNING'") == 2);
			assertThat(limits().removeLimit("default")).isTrue();
			assertThat(limits().all()).isEmpty();
			await().atMost(Duration.ofSeconds(5)).until(() -> fixture().count("status = 'RUNNING'") == 4);
		}
		finally {
			release.countDown();
		}
		await().atMost(WAIT).until(() -> fixture().count("status = 'SUCCEEDED'") == 4);
	}

	/**
	 * With a 20 s poll interval, room is taken as it returns: when a job of the queue ends here
	 * (a limit on running jobs), and when a rate limit's window allows the next start.
	 */
	@Test
	default void roomIsTakenAsItReturnsNotAtTheNextPoll() {
		handle("work", (payload, context) -> {
			Thread.sleep(50);
			return null;
		});
		limits().setLimit("default", Limit.concurrency(1));
		limits().setKeyLimit("default", "api", Limit.rate(2, Duration.ofMillis(300)));
		fixture().startManager((s) -> s.pollInterval(Duration.ofSeconds(20)));
		List<Long> ids = fixture().queue().enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2),
				Job.of("work", 3), Job.of("work", 4).concurrencyKey("api"), Job.of("work", 5).concurrencyKey("api"),
				Job.of("work", 6).concurrencyKey("api"), Job.of("work", 7).concurrencyKey("api")));
		await().atMost(Duration.ofSeconds(8)).until(() -> fixture().count("status = 'SUCCEEDED'") == ids.size());
		assertThat(fixture().count("attempts <> 1")).isZero();
	}

	/**
	 * Claims of one job at a time, up to a key's limit and no further: the claims that need not
	 * count running jobs by key (a full key is impossible), those that find out with their first
	 * read that they must, and those that count first.
	 */
	@Test
	default void aKeysLimitHoldsWhetherItsJobsAreCountedFirstOrWithTheRead() {
		limits().setKeyLimit("default", "*", Limit.concurrency(3));
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			jobs.add(Job.of("work", i).concurrencyKey("a"));
		}
		fixture().queue().enqueueAll(jobs);
		List<Integer> claimed = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			claimed.add(claim(1, "work").jobs().size());
		}
		assertThat(claimed).containsExactly(1, 1, 1, 0, 0);
		assertThat(fixture().count("status = 'RUNNING'")).isEqualTo(3);
	}

	/** A lowered limit stops no running job; no job starts until the count is under it. */
	@Test
	default void aLoweredLimitStopsNothingAndStartsNothingUntilTheCountIsUnderIt() {
		limits().setLimit("default", Limit.concurrency(3));
		fixture().queue().enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2), Job.of("work", 3), Job.of("work", 4)));
		List<JobRecord> running = claim(2, "work").jobs();
		assertThat(running).hasSize(2);
		limits().setLimit("default", Limit.concurrency(1));
		assertThat(claim(10, "work").jobs()).isEmpty();
		assertThat(fixture().count("status = 'RUNNING'")).isEqualTo(2);
		fixture().store().complete(List.of(new io.sqlqueue.internal.store.Completion(
				new io.sqlqueue.internal.store.Lease(running.get(0).id(), running.get(0).leaseToken()), null)));
		assertThat(claim(10, "work").jobs()).as("one still runs, the limit is one").isEmpty();
		fixture().store().complete(List.of(new io.sqlqueue.internal.store.Completion(
				new io.sqlqueue.internal.store.Lease(running.get(1).id(), running.get(1).leaseToken()), null)));
		assertThat(claim(10, "work").jobs()).hasSize(1);
	}

	/**
	 * An instance that claimed the queue before it had limits, and hears nothing of the change
	 * (it is made elsewhere), keeps them from its next claim on.
	 */
	@Test
	default void anInstanceThatHeardNothingOfNewLimitsKeepsThem() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		handle("block", (payload, context) -> release.await(30, TimeUnit.SECONDS));
		fixture().startManager((s) -> s);
		long first = fixture().queue().enqueue("block", 0);
		try {
			await().atMost(WAIT).until(() -> fixture().status(first) == JobStatus.RUNNING);
			fixture().otherInstanceFlowControl().setLimit("default", Limit.concurrency(2));
			fixture().queue().enqueueAll(List.of(Job.of("block", 1), Job.of("block", 2), Job.of("block", 3)));
			await().atMost(WAIT).until(() -> fixture().count("status = 'RUNNING'") == 2);
			// Time must pass: a third start under the new limit would come with no event to wait for.
			Thread.sleep(500);
			assertThat(fixture().count("status = 'RUNNING'")).isEqualTo(2);
		}
		finally {
			release.countDown();
		}
		await().atMost(WAIT).until(() -> fixture().count("status = 'SUCCEEDED'") == 4);
	}

	/**
	 * Limits removed and set again elsewhere, between two claims of an instance that read the
	 * old ones: the queue's flow row is deleted with its last limit and made anew, and the
	 * instance must not take the new row for the old one (same version) and claim under limits
	 * that are gone.
	 */
	@Test
	default void limitsRemovedAndSetAgainElsewhereAreReadAgain() {
		limits().setLimit("default", Limit.concurrency(10));
		fixture().queue().enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2), Job.of("work", 3),
				Job.of("work", 4)));
		assertThat(claim(1, "work").jobs()).hasSize(1);
		FlowControl elsewhere = fixture().otherInstanceFlowControl();
		assertThat(elsewhere.removeLimit("default")).isTrue();
		elsewhere.setLimit("default", Limit.concurrency(2));
		assertThat(claim(10, "work").jobs()).as("one runs, the limit is now two").hasSize(1);
		assertThat(fixture().count("status = 'RUNNING'")).isEqualTo(2);
	}

	/** Groups keep their order in a limited queue: one job of a group at a time, oldest first. */
	@Test
	default void groupsKeepTheirTurnsInALimitedQueue() {
		limits().setLimit("default", Limit.concurrency(10));
		List<Long> ids = fixture().queue()
			.enqueueAll(List.of(Job.of("work", 1).groupKey("g"), Job.of("work", 2).groupKey("g"), Job.of("work", 3)));
		assertThat(claim(10, "work").jobs()).extracting(JobRecord::id).containsExactly(ids.get(0), ids.get(2));
		assertThat(claim(10, "work").jobs()).isEmpty();
	}

	/**
	 * A caller's transaction that enqueued a job to run after a queued job of a limited queue
	 * holds that job's row until it commits. The claim passes over it: it does not wait for the
	 * row (while holding the queue's lock, and the Manager's poll loop with it), the queue's
	 * other jobs take all its room, the queues without limits run, and the Manager stops at
	 * once; once the caller commits, the held job runs too (a change of the queue's limits in
	 * the caller's transaction commits apart from it). The claim once waited for the row,
	 * and everything on the instance waited with it. SQLite is left out: it has one writer at a
	 * time, and the caller's transaction holds every other writer until it ends.
	 */
	@Test
	default void aJobHeldByACallersTransactionHoldsNothingElseBack() throws Exception {
		assumeFalse(fixture().database().dialect().name().equals("sqlite"),
				"SQLite has one writer at a time");
		CountDownLatch release = new CountDownLatch(1);
		handle("block", (payload, context) -> release.await(30, TimeUnit.SECONDS));
		fixture().register(HandlerDefinition.of("free", "unlimited", (payload, context) -> null));
		limits().setLimit("default", Limit.concurrency(3));
		List<Long> ids = fixture().queue().enqueueAll(List.of(Job.of("block", 0), Job.of("block", 1),
				Job.of("block", 2), Job.of("block", 3)));
		long held = ids.get(0);
		try (OpenTransaction<Long> caller = OpenTransaction.begin(
				fixture().database().dataSource(), () -> {
					// A change of limits commits on its own: the caller's transaction holds no flow row.
					limits().setLimit("default", Limit.concurrency(3));
					return fixture().queue().enqueue(Job.of("next", null).after(held));
				})) {
			caller.result();
			Manager manager = fixture().startManager((s) -> s);
			try {
				await().atMost(Duration.ofSeconds(10))
					.until(() -> fixture().count("status = 'RUNNING'") == 3);
				assertThat(fixture().status(held)).isEqualTo(JobStatus.QUEUED);
				long free = fixture().queue().enqueue(Job.of("free", null).queue("unlimited"));
				await().atMost(Duration.ofSeconds(10)).until(() -> fixture().status(free) == JobStatus.SUCCEEDED);
			}
			finally {
				release.countDown();
			}
			await().atMost(WAIT).until(() -> fixture().count("status = 'SUCCEEDED' AND handler = 'block'") == 3);
			CompletableFuture.runAsync(manager::stop).get(10, TimeUnit.SECONDS);
			assertThat(fixture().status(held)).isEqualTo(JobStatus.QUEUED);
			assertThat(fixture().count("attempts <> 1 AND handler = 'block' AND status = 'SUCCEEDED'")).isZero();
			caller.commit();
		}
		fixture().startManager((s) -> s);
		await().atMost(WAIT).until(() -> fixture().status(held) == JobStatus.SUCCEEDED);
		assertThat(fixture().job(held).attempts()).isEqualTo(1);
	}

	/**
	 * An instance of this database's flow control, as one started on its own pool, keeping its
	 * declarations every {@code refresh} (when its {@link DefaultFlowControl#keepDeclarations}
	 * is called).
	 */
	private DefaultFlowControl instance(DataSource dataSource, Duration refresh) {
		return new DefaultFlowControl(new FlowStore(dataSource, isolatedDatabase().dialect(),
				isolatedDatabase().schema())).withDeclarationRefresh(refresh);
	}

	/** Keeps {@code instance}'s declarations until {@code done}: a declaration lapses in three refreshes. */
	private static void keepUntil(DefaultFlowControl instance, java.util.function.BooleanSupplier done) {
		await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> {
			instance.keepDeclarations();
			return done.getAsBoolean();
		});
	}

	@Test
	default void limitsAreKeptPerSourceAndDeclaredAgainAtStartUp() {
		DefaultFlowControl limits = instance(isolatedDatabase().dataSource(), Duration.ofMillis(20));
		Set<String> served = Set.of("mail", "default");
		limits.setKeyLimit("default", "stripe", Limit.rate(100, Duration.ofMinutes(1)));
		limits.declare(LimitSource.PROPERTIES, List.of(LimitDefinition.ofQueue("mail", Limit.concurrency(5)),
				LimitDefinition.ofKeys("mail", "customer:*", Limit.concurrency(2))), served);
		assertThat(limits.limits("mail")).satisfies((mail) -> {
			assertThat(mail.limit()).isEqualTo(Limit.concurrency(5));
			assertThat(mail.limitOf("customer:7")).isEqualTo(Limit.concurrency(2));
		});
		long version = limits.limits("mail").version();
		// Declared again unchanged: nothing is written; changed: the version moves.
		limits.declare(LimitSource.PROPERTIES, List.of(LimitDefinition.ofQueue("mail", Limit.concurrency(5)),
				LimitDefinition.ofKeys("mail", "customer:*", Limit.concurrency(2))), served);
		assertThat(limits.limits("mail").version()).isEqualTo(version);
		limits.declare(LimitSource.PROPERTIES, List.of(LimitDefinition.ofQueue("mail", Limit.concurrency(6))), served);
		// The key limit's declaration, of this instance's last start-up, lapses first.
		keepUntil(limits, () -> limits.limits("mail").keyLimits().isEmpty());
		QueueLimits mail = limits.limits("mail");
		assertThat(mail.version()).isNotEqualTo(version);
		assertThat(mail.limit()).isEqualTo(Limit.concurrency(6));
		assertThat(mail.keyLimits()).as("no longer declared").isEmpty();
		assertThat(limits.limits("default").limitOf("stripe")).as("set through the API, not declared")
			.isEqualTo(Limit.rate(100, Duration.ofMinutes(1)));
		// An instance that serves other queues (another application, or another version) leaves
		// the limits of "mail" alone, and declares its own beside them.
		limits.declare(LimitSource.PROPERTIES, List.of(LimitDefinition.ofQueue("reports", Limit.concurrency(1))),
				Set.of("reports"));
		assertThat(limits.all()).extracting(QueueLimits::queue).containsExactlyInAnyOrder("default", "mail", "reports");
		limits.declare(LimitSource.PROPERTIES, List.of(), Set.of("mail", "reports"));
		keepUntil(limits, () -> limits.all().size() == 1);
		assertThat(limits.all()).extracting(QueueLimits::queue).containsExactly("default");
		assertThat(limits.removeKeyLimit("default", "stripe")).isTrue();
		assertThat(limits.removeKeyLimit("default", "stripe")).isFalse();
		assertThat(limits.all()).isEmpty();
		assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM " + table("queue_flow"), Integer.class))
			.as("a queue without limits has no flow row").isZero();
	}

	// --- versions: instances that declare different limits side by side

	/**
	 * A newer version adds a limit per key; an instance of the older version, started beside
	 * it, does not declare it and must not remove it while the newer instance lives, nor at
	 * any of its later refreshes.
	 */
	@Test
	default void anOlderInstanceStartedAfterANewerOneLeavesTheNewerOnesLimitInForce() {
		try (HikariDataSource pool = isolatedDatabase().newDataSource(4)) {
			Set<String> served = Set.of("payments");
			DefaultFlowControl newer = instance(isolatedDatabase().dataSource(), Duration.ofMinutes(1));
			DefaultFlowControl older = instance(pool, Duration.ofMillis(20));
			newer.declare(LimitSource.ANNOTATION, List.of(LimitDefinition.ofQueue("payments", Limit.concurrency(5)),
					LimitDefinition.ofKeys("payments", "customer:*", Limit.concurrency(2))), served);
			older.declare(LimitSource.ANNOTATION, List.of(LimitDefinition.ofQueue("payments", Limit.concurrency(5))),
					served);
			assertThat(older.limits("payments").limitOf("customer:7")).isEqualTo(Limit.concurrency(2));
			keepBothPastTheOlderOnesLapse(older, newer, Duration.ofMillis(20));
			assertThat(older.limits("payments").limitOf("customer:7")).isEqualTo(Limit.concurrency(2));
			assertThat(older.limits("payments").limit()).isEqualTo(Limit.concurrency(5));
		}
	}

	/**
	 * A limit that no live instance declares any more (the newer instance went away, and the
	 * older one never declared it) is removed once its last declaration has lapsed (three of
	 * the declaring instance's refreshes), by the older instance's refresh; one set through
	 * the API stays.
	 */
	@Test
	default void aLimitThatNoLiveInstanceDeclaresIsRemovedOnceItsDeclarationLapses() {
		try (HikariDataSource pool = isolatedDatabase().newDataSource(4)) {
			Set<String> served = Set.of("payments");
			DefaultFlowControl newer = instance(isolatedDatabase().dataSource(), Duration.ofMillis(300));
			DefaultFlowControl older = instance(pool, Duration.ofMillis(20));
			older.setKeyLimit("payments", "stripe", Limit.concurrency(1));
			newer.declare(LimitSource.ANNOTATION,
					List.of(LimitDefinition.ofKeys("payments", "customer:*", Limit.concurrency(2))), served);
			older.declare(LimitSource.ANNOTATION, List.of(), served);
			assertThat(older.limits("payments").limitOf("customer:7")).as("declared by a live instance")
				.isEqualTo(Limit.concurrency(2));
			long version = older.limits("payments").version();
			// The newer instance is gone: it keeps its declaration no more.
			keepUntil(older, () -> older.limits("payments").limitOf("customer:7") == null);
			QueueLimits payments = older.limits("payments");
			assertThat(payments.version()).isNotEqualTo(version);
			assertThat(payments.keyLimits()).extracting((limit) -> limit.keys()).containsExactly("stripe");
		}
	}

	/**
	 * Instances that start together declare the same queue's first limit at once: each makes
	 * the queue's flow row if it is not there yet, and every declaration succeeds. On MariaDB
	 * three or more of them once deadlocked (each that found the row made by another held a
	 * shared lock on it, then asked for the exclusive one), and start-up failed.
	 */
	@Test
	default void instancesDeclaringAQueuesFirstLimitTogetherAllSucceed() throws Exception {
		int instances = 4;
		int rounds = 25;
		List<HikariDataSource> pools = new ArrayList<>();
		ExecutorService threads = Executors.newFixedThreadPool(instances);
		try {
			List<FlowControl> flows = new ArrayList<>();
			for (int i = 0; i < instances; i++) {
				HikariDataSource pool = isolatedDatabase().newDataSource(1);
				pools.add(pool);
				flows.add(new DefaultFlowControl(new FlowStore(pool, isolatedDatabase().dialect(),
						isolatedDatabase().schema())));
			}
			CyclicBarrier together = new CyclicBarrier(instances);
			List<RuntimeException> failures = new CopyOnWriteArrayList<>();
			List<CompletableFuture<Void>> declarations = new ArrayList<>();
			for (FlowControl flow : flows) {
				declarations.add(CompletableFuture.runAsync(() -> {
					for (int round = 0; round < rounds && failures.isEmpty(); round++) {
						try {
							together.await(5, TimeUnit.SECONDS);
						}
						catch (Exception ex) {
							// Another failed (or, arriving after it failed, waits in vain): stop.
							return;
						}
						try {
							flow.setLimit("queue-" + round, Limit.concurrency(2));
						}
						catch (RuntimeException ex) {
							failures.add(ex);
							// The others stop at the next round instead of waiting for this one.
							together.reset();
							return;
						}
					}
				}, threads));
			}
			CompletableFuture.allOf(declarations.toArray(CompletableFuture[]::new)).handle((done, ex) -> null)
				.get(WAIT.toSeconds(), TimeUnit.SECONDS);
			assertThat(failures).as("declarations that failed").isEmpty();
		}
		finally {
			threads.shutdownNow();
			pools.forEach(HikariDataSource::close);
		}
		assertThat(limits().all()).hasSize(rounds)
			.allSatisfy((queue) -> assertThat(queue.limit()).isEqualTo(Limit.concurrency(2)));
	}

	/**
	 * A window counts for two periods from its start, so at least one period after the claim:
	 * 1.5 s, long enough that a busy machine's pause between the claim and the first prune does
	 * not let that prune find it expired already.
	 */
	@Test
	default void rateWindowsThatNoLongerCountArePruned() {
		limits().setKeyLimit("default", "k:*", Limit.rate(1, Duration.ofMillis(1500)));
		fixture().queue().enqueueAll(List.of(Job.of("work", 1).concurrencyKey("k:1"), Job.of("work", 2).concurrencyKey("k:2")));
		assertThat(claim(10, "work").jobs()).hasSize(2);
		String windows = "SELECT COUNT(*) FROM " + table("queue_rate_window");
		assertThat(fixture().jdbc().queryForObject(windows, Integer.class)).isEqualTo(2);
		assertThat(limits().pruneWindows()).isZero();
		await().atMost(WAIT).pollDelay(Duration.ofMillis(100)).until(() -> limits().pruneWindows() == 2);
		assertThat(fixture().jdbc().queryForObject(windows, Integer.class)).isZero();
		assertThat(limits().limits("default").keyLimits()).hasSize(1);
	}

	@Test
	default void aConcurrencyKeyIsStoredAndReadBack() {
		long id = fixture().queue().enqueue(Job.of("work", 1).concurrencyKey("customer:ü'; --"));
		assertThat(fixture().job(id).concurrencyKey()).isEqualTo("customer:ü'; --");
		List<Long> batch = fixture().queue()
			.enqueueAll(List.of(Job.of("work", 2).concurrencyKey("a"), Job.of("work", 3)));
		assertThat(fixture().job(batch.get(0)).concurrencyKey()).isEqualTo("a");
		assertThat(fixture().job(batch.get(1)).concurrencyKey()).isNull();
		limits().setLimit("default", Limit.concurrency(3));
		assertThat(fixture().jdbc().queryForObject("SELECT key_pattern FROM queue_limit WHERE queue = 'default'",
				String.class)).as("a queue's own limit is stored under the key pattern LimitRow.QUEUE")
			.isEqualTo(LimitRow.QUEUE);
	}

	/**
	 * A limited claim starts its jobs at its clock reading (the lock's, which its rate windows
	 * count), and judges jobs due at that same moment: no job starts before it is due, not
	 * even one that became due between the claim's clock reading and its read of the
	 * candidates (a parked durable job claimed so found its sleep not over, and parked again).
	 */
	@Test
	default void aLimitedClaimStartsNoJobBeforeItIsDue() {
		limits().setLimit("default", Limit.concurrency(10));
		startsNoJobBeforeItIsDue();
	}

	/** As {@link #aLimitedClaimStartsNoJobBeforeItIsDue}, for a fair claim. */
	@Test
	default void aFairClaimStartsNoJobBeforeItIsDue() {
		limits().setFairness("default", io.sqlqueue.flow.Fairness.roundRobin());
		startsNoJobBeforeItIsDue();
	}

	/**
	 * Claims a job that becomes due between the claim's clock reading (its lock) and the
	 * statements after it: a hook on the claiming store's connections waits, before the first
	 * statement after the lock, until the job is due by the database's clock.
	 */
	private void startsNoJobBeforeItIsDue() {
		String now = isolatedDatabase().dialect().now();
		AtomicBoolean watching = new AtomicBoolean();
		AtomicBoolean locked = new AtomicBoolean();
		AtomicLong job = new AtomicLong();
		AtomicBoolean dueBetween = new AtomicBoolean();
		DataSource hooked = ConnectionHooks.before(isolatedDatabase().dataSource(), (call, args) -> {
			if (!call.equals("prepareStatement") || !watching.get()) {
				return;
			}
			String sql = (String) args[0];
			if (sql.contains(" AS db_now") && sql.contains("window_starts, previous_starts")) {
				locked.set(true);
			}
			else if (locked.get()) {
				watching.set(false);
				// The claim has read its clock; the job was not due yet if it still is not now.
				String it = "id = " + job.get();
				dueBetween.set(fixture().count(it + " AND run_at > " + now) == 1);
				await().atMost(WAIT).until(() -> fixture().count(it + " AND run_at < " + now) == 1);
			}
		});
		JobStore store = fixture().newStore(hooked);
		ClaimRequest request = new ClaimRequest("test-worker", "default", List.of("work"), 10, 30_000);
		for (int attempt = 1; !dueBetween.get(); attempt++) {
			// The claim reads its clock at once, well before the job is due (a few tries on a slow machine).
			assertThat(attempt).as("a claim read its clock before a job due in a second was due").isLessThanOrEqualTo(3);
			job.set(fixture().queue().enqueue(Job.of("work", attempt).delay(Duration.ofSeconds(1))));
			locked.set(false);
			watching.set(true);
			store.claimJobs(request);
			assertThat(locked).as("the claim took the queue's lock").isTrue();
			assertThat(fixture().count("status = 'RUNNING' AND started_at < run_at"))
				.as("jobs started before they were due").isZero();
		}
		assertThat(store.claimJobs(request).jobs()).extracting(JobRecord::id).contains(job.get());
		assertThat(fixture().count("status = 'RUNNING' AND started_at < run_at")).isZero();
	}

	/** Runs the queue's jobs on three instances, each with its own pool and 4 workers, until all {@code jobs} succeeded. */
	private void runOnThreeInstances(int jobs) {
		try (HikariDataSource one = isolatedDatabase().newDataSource(4);
				HikariDataSource two = isolatedDatabase().newDataSource(4);
				HikariDataSource three = isolatedDatabase().newDataSource(4)) {
			List<Manager> instances = new ArrayList<>();
			for (HikariDataSource instance : List.of(one, two, three)) {
				instances.add(fixture().startInstance((s) -> s.defaultConcurrency(4), instance));
			}
			await().atMost(WAIT).until(() -> fixture().count("status = 'SUCCEEDED'") == jobs);
			instances.forEach(Manager::stop);
		}
	}

}
