package io.sqlqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import io.sqlqueue.flow.FairKeyShare;
import io.sqlqueue.flow.Fairness;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.LimitSource;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.flow.DefaultFlowControl;
import io.sqlqueue.internal.flow.FlowClaim;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.ClaimResult;
import io.sqlqueue.internal.store.FlowStore;
import io.sqlqueue.internal.store.JobStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Fair turns (docs/flow-control.md#fair-turns) as every database and claim method must show
 * them: keys take turns among due jobs of equal priority, round-robin or weighted, across
 * instances; a key with nothing due saves no turns; priorities, groups and limits still hold.
 * Run by every {@link QueueConformanceTests}.
 */
interface FairTurnsConformance extends ConformanceSupport {

	private FlowControl flow() {
		return fixture().flowControl();
	}

	private List<String> claimKeys(JobStore store, int limit) {
		ClaimResult result = store.claimJobs(new ClaimRequest("test-worker", "default", List.of("work"), limit, 30_000));
		return result.jobs().stream().map((job) -> (job.concurrencyKey() != null) ? job.concurrencyKey() : "-").toList();
	}

	private List<String> claimKeys(int limit) {
		return claimKeys(fixture().store(), limit);
	}

	private static List<Job> jobsOf(String key, int count) {
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			jobs.add((key != null) ? Job.of("work", i).concurrencyKey(key) : Job.of("work", i));
		}
		return jobs;
	}

	private static Map<String, Integer> counts(List<String> keys) {
		Map<String, Integer> counts = new HashMap<>();
		keys.forEach((key) -> counts.merge(key, 1, Integer::sum));
		return counts;
	}

	/**
	 * A flood enqueued first does not go first: one claim after another, each key with jobs
	 * due (the jobs without a key as one of them) starts one job per round, and the light keys
	 * are done while the flood has had a round each.
	 */
	@Test
	default void keysTakeTurnsRoundRobin() {
		flow().setFairness("default", Fairness.roundRobin());
		List<Job> jobs = new ArrayList<>(jobsOf("flood", 200));
		jobs.addAll(jobsOf("a", 3));
		jobs.addAll(jobsOf("b", 3));
		jobs.addAll(jobsOf(null, 3));
		fixture().queue().enqueueAll(jobs);
		List<String> started = new ArrayList<>();
		for (int claim = 0; claim < 3; claim++) {
			started.addAll(claimKeys(4));
		}
		assertThat(counts(started)).as("starts of 12, in claims of 4: %s", started)
			.containsExactlyInAnyOrderEntriesOf(Map.of("flood", 3, "a", 3, "b", 3, "-", 3));
		assertThat(claimKeys(4)).as("only the flood is left").containsExactly("flood", "flood", "flood", "flood");
		assertThat(fixture().count("status = 'RUNNING'")).isEqualTo(16);
	}

	/** A key of weight 3 starts three jobs for each one of a key of weight 1 (keys no pattern matches weigh 1). */
	@Test
	default void weightsGiveStartsInProportion() {
		flow().setFairness("default", Fairness.roundRobin().withWeight("gold:*", 3));
		List<Job> jobs = new ArrayList<>(jobsOf("tin", 40));
		jobs.addAll(jobsOf("gold:1", 40));
		fixture().queue().enqueueAll(jobs);
		List<String> started = new ArrayList<>();
		for (int claim = 0; claim < 5; claim++) {
			started.addAll(claimKeys(4));
		}
		assertThat(counts(started)).as("%s", started).containsExactlyInAnyOrderEntriesOf(Map.of("gold:1", 15, "tin", 5));
		// What operators see: each key's due jobs and its share of the starts.
		assertThat(flow().fairShares("default")).containsExactly(new FairKeyShare("tin", 35, 5, 0.25),
				new FairKeyShare("gold:1", 25, 15, 0.75));
	}

	/**
	 * With more keys due than a claim reads, a claim shares its room among the keys whose turns
	 * come first, several starts each, and the claims after it go on with the keys after them:
	 * over the claims every key has its share, none more than one claim's quantum ahead.
	 */
	@Test
	default void manyKeysShareTheStartsOverClaims() {
		flow().setFairness("default", Fairness.roundRobin());
		int keys = 5 * FlowClaim.FAIR_KEYS_PER_READ;
		int claim = 2 * keys;
		List<Job> jobs = new ArrayList<>();
		for (int key = 0; key < keys; key++) {
			jobs.addAll(jobsOf("key-" + key, 30));
		}
		fixture().queue().enqueueAll(jobs);
		List<String> first = claimKeys(claim);
		assertThat(first).hasSize(claim);
		assertThat(counts(first)).as("keys of the first claim").hasSize(FlowClaim.FAIR_KEYS_PER_READ);
		List<String> started = new ArrayList<>(first);
		for (int more = 1; more < 10; more++) {
			started.addAll(claimKeys(claim));
		}
		Map<String, Integer> counts = counts(started);
		int quantum = claim / FlowClaim.FAIR_KEYS_PER_READ;
		assertThat(counts).as("every key started jobs").hasSize(keys);
		assertThat(counts.values()).as("starts per key, 20 on average, quantum %d: %s", quantum, counts)
			.allSatisfy((count) -> assertThat(count).isBetween(20 - quantum, 20 + quantum));
	}

	/**
	 * While another key keeps jobs due (so no claim looks at every key at once), a key whose job
	 * became due after the key was seen is found by the look at every key an instance makes
	 * every {@code FAIR_FULL_SCAN_INTERVAL}: before the claim takes the queue's lock where the
	 * database lets it read first, under it on SQLite.
	 */
	@Test
	default void aKeyDueLaterIsFoundByThePeriodicLookWhileAnotherKeyIsBusy() throws Exception {
		flow().setFairness("default", Fairness.roundRobin());
		fixture().queue().enqueueAll(jobsOf("busy", 500));
		long later = fixture().queue()
			.enqueue(Job.of("work", 1).concurrencyKey("later").delay(java.time.Duration.ofMillis(300)));
		java.time.Duration interval = FlowClaim.FAIR_FULL_SCAN_INTERVAL;
		List<String> started = new ArrayList<>(claimKeys(1));
		long deadline = System.nanoTime() + 3 * interval.toNanos();
		while (!started.contains("later") && System.nanoTime() < deadline) {
			Thread.sleep(50);
			started.addAll(claimKeys(1));
		}
		assertThat(started).as("claims of one job every 50 ms for up to %s", interval.multipliedBy(3))
			.contains("later");
		assertThat(fixture().status(later)).isEqualTo(JobStatus.RUNNING);
	}

	/**
	 * Waits until the interval after which an instance looks again for keys not in a fair
	 * queue's turns has passed since {@code lastClaim} (by {@link System#nanoTime()} of the
	 * moment the last claim returned, the clock the claim's looks are timed by): the next claim
	 * looks.
	 */
	private static void awaitPastTheLookForKeys(long lastClaim) {
		await().atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5))
			.until(() -> System.nanoTime() - lastClaim >= FlowClaim.FAIR_SCAN_INTERVAL.toNanos());
	}

	/**
	 * A key that had nothing due saved up no turns, and a key that ran alone is not made to
	 * wait for it: from the moment both are in the turns they alternate (a new key enters at
	 * the instance's next look for keys, within {@code FAIR_SCAN_INTERVAL}).
	 */
	@Test
	default void aKeyWithNothingDueSavesNoTurns() {
		flow().setFairness("default", Fairness.roundRobin());
		fixture().queue().enqueueAll(jobsOf("early", 30));
		long looked = System.nanoTime();
		assertThat(claimKeys(10)).hasSize(10).containsOnly("early");
		fixture().queue().enqueueAll(jobsOf("late", 30));
		boolean beforeTheNextLook = System.nanoTime() - looked < FlowClaim.FAIR_SCAN_INTERVAL.toNanos();
		List<String> next = claimKeys(2);
		long lastClaim = System.nanoTime();
		if (beforeTheNextLook) {
			// A machine that took longer than the interval for the enqueue looked again, rightly.
			assertThat(next).as("a new key enters the turns at the next look for keys").containsOnly("early");
		}
		awaitPastTheLookForKeys(lastClaim);
		assertThat(counts(claimKeys(10))).containsExactlyInAnyOrderEntriesOf(Map.of("early", 5, "late", 5));
		assertThat(counts(claimKeys(10))).containsExactlyInAnyOrderEntriesOf(Map.of("early", 5, "late", 5));
	}

	/**
	 * A job not due when its key was seen (delayed, or queued again for a retry) makes the key
	 * leave the turns, and a look at the jobs enqueued since cannot see it again; once it is due,
	 * a claim that finds no key in the turns with a job due looks at every key at once and takes
	 * it, rather than in {@code FULL_SCAN_INTERVAL}.
	 */
	@Test
	default void aKeyWhoseJobBecomesDueLaterIsFound() {
		flow().setFairness("default", Fairness.roundRobin());
		long later = fixture().queue()
			.enqueue(Job.of("work", 1).concurrencyKey("later").delay(java.time.Duration.ofSeconds(1)));
		fixture().queue().enqueue(Job.of("work", 2).concurrencyKey("now"));
		long fullLook = System.nanoTime();
		assertThat(claimKeys(5)).as("only one job is due").containsExactly("now");
		awaitPastTheLookForKeys(System.nanoTime());
		assertThat(claimKeys(5)).as("still only one job was due").isEmpty();
		String due = "id = " + later + " AND run_at <= " + isolatedDatabase().dialect().now();
		await().atMost(WAIT).pollInterval(Duration.ofMillis(10)).until(() -> fixture().count(due) == 1);
		assertThat(claimKeys(5)).containsExactly("later");
		assertThat(Duration.ofNanos(System.nanoTime() - fullLook))
			.as("found before the periodic look at every key could have found it")
			.isLessThan(FlowClaim.FAIR_FULL_SCAN_INTERVAL);
		assertThat(fixture().status(later)).isEqualTo(JobStatus.RUNNING);
	}

	/** The turns are the queue's, not an instance's: two instances' claims share one order. */
	@Test
	default void turnsHoldAcrossInstances() {
		flow().setFairness("default", Fairness.roundRobin());
		List<Job> jobs = new ArrayList<>(jobsOf("flood", 100));
		for (int key = 0; key < 5; key++) {
			jobs.addAll(jobsOf("light-" + key, 2));
		}
		fixture().queue().enqueueAll(jobs);
		try (HikariDataSource other = isolatedDatabase().newDataSource(2)) {
			JobStore elsewhere = fixture().newStore(other);
			List<String> started = new ArrayList<>();
			for (int claim = 0; claim < 6; claim++) {
				started.addAll(claimKeys((claim % 2 == 0) ? fixture().store() : elsewhere, 2));
			}
			assertThat(counts(started)).as("%s", started).containsEntry("flood", 2);
			for (int key = 0; key < 5; key++) {
				assertThat(counts(started)).containsEntry("light-" + key, 2);
			}
		}
	}

	/** Priorities still win across levels: the keys take turns within the highest priority with jobs due first. */
	@Test
	default void prioritiesStillWin() {
		flow().setFairness("default", Fairness.roundRobin());
		List<Job> jobs = new ArrayList<>(jobsOf("low", 5));
		for (int i = 0; i < 3; i++) {
			jobs.add(Job.of("work", i).concurrencyKey("urgent").priority(5));
		}
		jobs.add(Job.of("work", 9).concurrencyKey("other").priority(5));
		fixture().queue().enqueueAll(jobs);
		assertThat(claimKeys(3)).containsExactly("other", "urgent", "urgent");
		assertThat(claimKeys(3)).containsExactly("urgent", "low", "low");
	}

	/**
	 * Fair turns are fair across priorities: a key whose jobs are of a lower priority than a
	 * job another key's limit holds back takes its turns at its own priority in the same
	 * claim. Having nothing at the higher priority costs it neither its turn nor its place in
	 * the turns (it had left them, and its next jobs waited for the look at every key, 5 s
	 * each, while the workers sat idle).
	 */
	@Test
	default void aKeyWithJobsOnlyAtALowerPriorityTakesItsTurnsWhileAHigherPriorityJobIsHeldBack() {
		flow().setFairness("default", Fairness.roundRobin());
		flow().setKeyLimit("default", "a", Limit.concurrency(1));
		fixture().queue().enqueue(Job.of("work", 1).concurrencyKey("a").priority(5));
		assertThat(claimKeys(4)).as("a starts its job and is at its limit").containsExactly("a");
		long heldBack = fixture().queue().enqueue(Job.of("work", 2).concurrencyKey("a").priority(5));
		// k's jobs come one at a time, each claimed when it comes, then two at once.
		fixture().queue().enqueue(Job.of("work", 3).concurrencyKey("k"));
		assertThat(claimKeys(4)).as("k's first job, in the next claim").containsExactly("k");
		fixture().queue().enqueue(Job.of("work", 4).concurrencyKey("k"));
		assertThat(claimKeys(4)).as("k's second job, in the next claim").containsExactly("k");
		fixture().queue().enqueueAll(jobsOf("k", 2));
		assertThat(claimKeys(4)).as("k's last two jobs, in the next claim").containsExactly("k", "k");
		assertThat(fixture().status(heldBack)).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().count("status = 'RUNNING' AND concurrency_key = 'k'")).isEqualTo(4);
	}

	/**
	 * A key read with nothing due at a higher priority, in a claim that the keys with jobs
	 * there fill, stays in the turns for its jobs at a lower priority (it left them, and came
	 * back only with a look for keys, at the smallest pass).
	 */
	@Test
	default void aKeyStaysInTheTurnsWhileAHigherPriorityFillsTheClaims() {
		flow().setFairness("default", Fairness.roundRobin());
		fixture().queue().enqueue(Job.of("work", 1).concurrencyKey("k"));
		assertThat(claimKeys(1)).containsExactly("k");
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			jobs.add(Job.of("work", i).concurrencyKey("b").priority(5));
		}
		jobs.add(Job.of("work", 2).concurrencyKey("k"));
		fixture().queue().enqueueAll(jobs);
		String inTheTurns = "SELECT COUNT(*) FROM " + table("queue_fair_key") + " WHERE fair_key = 'k'";
		assertThat(claimKeys(2)).as("the claim is filled at priority 5").containsExactly("b", "b");
		assertThat(fixture().jdbc().queryForObject(inTheTurns, Integer.class)).as("k is in the turns").isEqualTo(1);
		assertThat(claimKeys(8)).containsOnly("b").hasSize(8);
		assertThat(claimKeys(4)).containsExactly("k");
		assertThat(claimKeys(4)).isEmpty();
		assertThat(fixture().jdbc().queryForObject(inTheTurns, Integer.class))
			.as("k, with nothing due at any priority, has left the turns").isZero();
	}

	/** Limits and groups hold in a fair queue: a key at its limit takes no turn, a group runs one job at a time, in order. */
	@Test
	default void limitsAndGroupsHoldInAFairQueue() {
		flow().setFairness("default", Fairness.roundRobin());
		flow().setKeyLimit("default", "capped", Limit.concurrency(1));
		List<Job> jobs = new ArrayList<>(jobsOf("capped", 5));
		jobs.add(Job.of("work", 1).concurrencyKey("grouped").groupKey("g"));
		jobs.add(Job.of("work", 2).concurrencyKey("grouped").groupKey("g"));
		jobs.addAll(jobsOf("free", 5));
		List<Long> ids = fixture().queue().enqueueAll(jobs);
		assertThat(counts(claimKeys(10))).containsExactlyInAnyOrderEntriesOf(Map.of("capped", 1, "grouped", 1, "free", 5));
		assertThat(fixture().status(ids.get(5))).isEqualTo(JobStatus.RUNNING);
		assertThat(fixture().status(ids.get(6))).isEqualTo(JobStatus.QUEUED);
		assertThat(claimKeys(10)).isEmpty();
		assertThat(fixture().count("status = 'RUNNING' AND concurrency_key = 'capped'")).isEqualTo(1);
	}

	/**
	 * The starvation bound, at test scale, with real workers on two instances claiming ahead
	 * of their workers: light keys enqueued behind a flood all start (are claimed: a job's
	 * start is its claim's time on the database's clock) before the flood has had twice its
	 * fair share, where in run order every one of them would wait for all 400 of the flood's
	 * jobs.
	 */
	@Test
	default void aFloodStarvesNoLightKeyAcrossInstances() {
		fixture().register(HandlerDefinition.of("work", "default", (payload, context) -> {
			Thread.sleep(5);
			return null;
		}));
		flow().setFairness("default", Fairness.roundRobin());
		List<Job> jobs = new ArrayList<>(jobsOf("flood", 400));
		for (int key = 0; key < 9; key++) {
			jobs.addAll(jobsOf("light-" + key, 5));
		}
		fixture().queue().enqueueAll(jobs);
		try (HikariDataSource one = isolatedDatabase().newDataSource(4);
				HikariDataSource two = isolatedDatabase().newDataSource(4)) {
			List<Manager> instances = new ArrayList<>();
			for (HikariDataSource instance : List.of(one, two)) {
				instances.add(fixture().startInstance((s) -> s.defaultConcurrency(4), instance));
			}
			await().atMost(WAIT).until(() -> fixture().count("status = 'SUCCEEDED' AND concurrency_key LIKE 'light-%'") == 45);
			instances.forEach(Manager::stop);
		}
		String lastLightStart = "(SELECT MAX(l.started_at) FROM %s l WHERE l.concurrency_key LIKE 'light-%%')"
			.formatted(fixture().table());
		// Each light key has 5 jobs: meanwhile the flood's fair share is 5 starts.
		assertThat(fixture().count("concurrency_key = 'flood' AND started_at < " + lastLightStart))
			.as("flood starts in the claims before the last light start").isBetween(1, 10);
		assertThat(fixture().count("attempts > 1")).isZero();
	}

	/** Fair turns end, and the jobs run in run order again; a queue left with nothing loses its flow row. */
	@Test
	default void fairTurnsAreRemovedAndDeclaredPerSource() {
		DefaultFlowControl declaring = instance(isolatedDatabase().dataSource(), Duration.ofMillis(20));
		declaring.declareFairness(LimitSource.PROPERTIES,
				Map.of("default", Fairness.roundRobin().withWeight("vip", 2)), java.util.Set.of("default"));
		assertThat(flow().limits("default").fairness()).isEqualTo(Fairness.roundRobin().withWeight("vip", 2));
		assertThat(fixture().otherInstanceFlowControl().all()).extracting(io.sqlqueue.flow.QueueLimits::queue)
			.containsExactly("default");
		declaring.declareFairness(LimitSource.PROPERTIES, Map.of(), java.util.Set.of("default"));
		// Removed once the declaration of this instance's last start-up has lapsed.
		keepUntil(declaring, () -> !flow().limits("default").isFair());
		assertThat(flow().limits("default").isFair()).isFalse();
		fixture().queue().enqueueAll(jobsOf("flood", 5));
		fixture().queue().enqueueAll(jobsOf("light", 1));
		assertThat(claimKeys(5)).containsOnly("flood");
		flow().setFairness("default", Fairness.roundRobin());
		assertThat(flow().removeFairness("default")).isTrue();
		assertThat(flow().removeFairness("default")).isFalse();
		assertThat(flow().all()).isEmpty();
	}

	/** An instance of flow control on its own pool, keeping its declarations every {@code refresh}. */
	private DefaultFlowControl instance(javax.sql.DataSource dataSource, Duration refresh) {
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

	/**
	 * A newer version makes a queue fair; an instance of the older version, started beside it,
	 * does not declare the turns and must not end them while the newer instance lives.
	 */
	@Test
	default void anOlderInstanceStartedAfterANewerOneLeavesTheNewerOnesFairTurns() {
		try (HikariDataSource pool = isolatedDatabase().newDataSource(4)) {
			java.util.Set<String> served = java.util.Set.of("default");
			Fairness turns = Fairness.roundRobin().withWeight("vip", 2);
			DefaultFlowControl newer = instance(isolatedDatabase().dataSource(), Duration.ofMinutes(1));
			DefaultFlowControl older = instance(pool, Duration.ofMillis(20));
			newer.declareFairness(LimitSource.ANNOTATION, Map.of("default", turns), served);
			older.declareFairness(LimitSource.ANNOTATION, Map.of(), served);
			assertThat(older.limits("default").fairness()).isEqualTo(turns);
			keepBothPastTheOlderOnesLapse(older, newer, Duration.ofMillis(20));
			assertThat(older.limits("default").fairness()).isEqualTo(turns);
		}
	}

	/**
	 * Fair turns that no live instance declares any more end once their last declaration has
	 * lapsed, at a refresh of an instance that serves the queue.
	 */
	@Test
	default void fairTurnsThatNoLiveInstanceDeclaresEndOnceTheirDeclarationLapses() {
		try (HikariDataSource pool = isolatedDatabase().newDataSource(4)) {
			java.util.Set<String> served = java.util.Set.of("default");
			Fairness turns = Fairness.roundRobin().withWeight("vip", 2);
			DefaultFlowControl newer = instance(isolatedDatabase().dataSource(), Duration.ofMillis(300));
			DefaultFlowControl older = instance(pool, Duration.ofMillis(20));
			newer.declareFairness(LimitSource.ANNOTATION, Map.of("default", turns), served);
			older.declareFairness(LimitSource.ANNOTATION, Map.of(), served);
			assertThat(older.limits("default").fairness()).as("declared by a live instance").isEqualTo(turns);
			// The newer instance is gone: it keeps its declaration no more.
			keepUntil(older, () -> !older.limits("default").isFair());
			assertThat(older.all()).isEmpty();
			assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM " + table("queue_fairness"),
					Integer.class)).as("no weight of the queue is left").isZero();
		}
	}

	/** Bad fair turns are refused before anything is stored. */
	@Test
	default void badFairTurnsAreRefusedAndNothingIsStored() {
		assertThatIllegalArgumentException().isThrownBy(() -> Fairness.roundRobin().withWeight("vip", 0))
			.withMessageContaining("'vip'");
		assertThatIllegalArgumentException().isThrownBy(() -> Fairness.roundRobin().withWeight("a*b", 2))
			.withMessageContaining("'a*b'");
		assertThatIllegalArgumentException().isThrownBy(() -> flow().setFairness("no such queue!", Fairness.roundRobin()));
		assertThat(flow().all()).isEmpty();
	}

}
