package io.sqlqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;

import io.sqlqueue.internal.maintenance.QueueStats;
import io.sqlqueue.internal.store.ClusterStore;
import io.sqlqueue.internal.store.QueueCount;
import io.sqlqueue.internal.store.SharedCounts;
import io.sqlqueue.test.GatedJobStore;
import io.sqlqueue.test.OpenTransaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The counts one instance counts for the cluster on every database: the others read them
 * instead of counting, the next turn comes after the gap, a counter that stalled past its
 * turn writes nothing, turns taken at once go to one instance, and an instance whose schema
 * has no shared counts counts for itself. {@link QueueConformanceTests} implements this.
 */
interface SharedCountsConformance extends ConformanceSupport {

	private QueueStats stats(String instance, Duration interval) {
		// The scheduler is never started: the tests run the passes themselves.
		return new QueueStats(fixture().store(), new SimpleAsyncTaskScheduler(), interval, null, instance);
	}

	/**
	 * Waits until the count turn's {@code column} ({@code taken_at}, {@code counted_at}) is
	 * older than {@code age} by the database's clock, compared as the store compares it when
	 * it gives the turn or judges shared counts.
	 */
	private void awaitTurnOlderThan(String column, Duration age) {
		String older = "SELECT COUNT(*) FROM " + table("queue_count_turn") + " WHERE id = 1 AND " + column + " < "
				+ isolatedDatabase().dialect().nowPlusMillis();
		await().atMost(WAIT).pollInterval(Duration.ofMillis(10))
			.until(() -> fixture().jdbc().queryForObject(older, Integer.class, -age.toMillis()) == 1);
	}

	private void enqueue(int jobs) {
		for (int i = 0; i < jobs; i++) {
			fixture().queue().enqueue(Job.of("counted.job", i).queue("counted"));
		}
	}

	@Test
	default void oneInstanceCountsAndTheOthersReadItsCounts() {
		QueueStats first = stats("instance-a", Duration.ofMinutes(1));
		QueueStats second = stats("instance-b", Duration.ofMinutes(1));
		enqueue(2);
		QueueStats.Snapshot counted = first.refreshInTurn();
		assertThat(counted.failure()).isNull();
		assertThat(counted.countedBy()).isEqualTo("instance-a");
		assertThat(counted.jobs("counted", JobStatus.QUEUED)).isEqualTo(2);
		enqueue(1);
		// Within the turn's gap the second reads the first's counts: had it counted, it would see 3.
		QueueStats.Snapshot read = second.refreshInTurn();
		assertThat(read.failure()).isNull();
		assertThat(read.countedBy()).isEqualTo("instance-a");
		assertThat(read.jobs("counted", JobStatus.QUEUED)).isEqualTo(2);
		assertThat(read.sampledAt()).isNotNull();
		assertThat(first.refreshInTurn().jobs("counted", JobStatus.QUEUED)).isEqualTo(2);
	}

	@Test
	default void theNextTurnComesAfterTheGap() {
		QueueStats first = stats("instance-a", Duration.ofMillis(300));
		QueueStats second = stats("instance-b", Duration.ofMillis(300));
		enqueue(2);
		assertThat(first.refreshInTurn().countedBy()).isEqualTo("instance-a");
		enqueue(1);
		// Past the interval (the gap is 0.9 of it) since the first took its turn.
		awaitTurnOlderThan("taken_at", Duration.ofMillis(300));
		QueueStats.Snapshot counted = second.refreshInTurn();
		assertThat(counted.countedBy()).isEqualTo("instance-b");
		assertThat(counted.jobs("counted", JobStatus.QUEUED)).isEqualTo(3);
		assertThat(first.refreshInTurn().jobs("counted", JobStatus.QUEUED)).isEqualTo(3);
	}

	/**
	 * A count that took long (a held horizon makes the ready index's head long to walk) is not
	 * repeated for ten times as long, by the instance that counted nor by one that read its
	 * counts, though both intervals have passed: unpaced, either would count again.
	 */
	@Test
	default void aSlowCountIsNotRepeatedForTenTimesAsLongByAnyInstance() throws Exception {
		GatedJobStore slowStore = new GatedJobStore(fixture());
		QueueStats first = new QueueStats(slowStore, new SimpleAsyncTaskScheduler(), Duration.ofSeconds(2), null,
				"instance-a");
		QueueStats second = stats("instance-b", Duration.ofSeconds(2));
		enqueue(2);
		slowStore.counts.arm();
		ExecutorService thread = Executors.newSingleThreadExecutor();
		try {
			Future<QueueStats.Snapshot> slow = thread.submit(first::refreshInTurn);
			await().atMost(Duration.ofSeconds(20)).until(() -> slowStore.counts.held() == 1);
			sleepQuietly(800);
			slowStore.counts.open();
			assertThat(slow.get(20, TimeUnit.SECONDS).jobs("counted", JobStatus.QUEUED)).isEqualTo(2);
		}
		finally {
			thread.shutdownNow();
		}
		enqueue(1);
		// Within its gap (1.8 s): the second reads the counts, and how long they took.
		assertThat(second.refreshInTurn().countedBy()).isEqualTo("instance-a");
		// Past both unpaced gaps (0.9 of the 2 s interval, from the turn's take), not past nine
		// tenths of ten times the 800 ms the count took.
		awaitTurnOlderThan("taken_at", Duration.ofSeconds(2));
		QueueStats.Snapshot read = second.refreshInTurn();
		assertThat(read.countedBy()).isEqualTo("instance-a");
		assertThat(read.jobs("counted", JobStatus.QUEUED)).as("counted again by the instance that read").isEqualTo(2);
		assertThat(first.refreshInTurn().jobs("counted", JobStatus.QUEUED)).as("counted again by the counter")
			.isEqualTo(2);
	}

	@Test
	default void aCounterThatStalledPastItsTurnWritesNothing() {
		ClusterStore cluster = fixture().store().cluster();
		OptionalLong stalled = cluster.takeCountTurn("stalled", Duration.ofMillis(100));
		assertThat(stalled).isPresent();
		// Past three gaps: an unshared turn passes on.
		awaitTurnOlderThan("taken_at", Duration.ofMillis(300));
		OptionalLong next = cluster.takeCountTurn("next", Duration.ofMillis(100));
		assertThat(next).isPresent();
		assertThat(next.getAsLong()).isGreaterThan(stalled.getAsLong());
		List<QueueCount> newer = List.of(new QueueCount("mail", JobStatus.QUEUED, 5, Duration.ofSeconds(7), true));
		assertThat(cluster.shareCounts("next", next.getAsLong(), newer, Map.of("mail", Map.of("key-rate", 4L))))
			.isTrue();
		List<QueueCount> older = List.of(new QueueCount("mail", JobStatus.QUEUED, 1, Duration.ZERO));
		assertThat(cluster.shareCounts("stalled", stalled.getAsLong(), older, Map.of())).isFalse();
		SharedCounts shared = cluster.sharedCounts();
		assertThat(shared.countedBy()).isEqualTo("next");
		assertThat(shared.counts()).containsExactlyElementsOf(newer);
		assertThat(shared.throttled()).isEqualTo(Map.of("mail", Map.of("key-rate", 4L)));
		assertThat(shared.age()).isLessThan(Duration.ofMinutes(1));
	}

	@Test
	default void turnsTakenAtOnceGoToOneInstance() throws Exception {
		ClusterStore cluster = fixture().store().cluster();
		int takers = 6;
		CyclicBarrier start = new CyclicBarrier(takers);
		ExecutorService threads = Executors.newFixedThreadPool(takers);
		List<OptionalLong> taken = new ArrayList<>();
		try {
			List<Future<OptionalLong>> turns = new ArrayList<>();
			for (int i = 0; i < takers; i++) {
				String taker = "taker-" + i;
				turns.add(threads.submit(() -> {
					start.await(10, TimeUnit.SECONDS);
					// A gap far longer than the round: a second turn would be a second taker let in.
					return cluster.takeCountTurn(taker, Duration.ofMinutes(1));
				}));
			}
			for (Future<OptionalLong> turn : turns) {
				taken.add(turn.get(30, TimeUnit.SECONDS));
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(taken).filteredOn(OptionalLong::isPresent).hasSize(1);
		long first = taken.stream().filter(OptionalLong::isPresent).findFirst().orElseThrow().getAsLong();
		// No gap: the next taker gets the next turn at once.
		assertThat(cluster.takeCountTurn("after", Duration.ZERO)).hasValue(first + 1);
	}

	/**
	 * A count that takes longer than the gap (a big table, a short interval) keeps its turn
	 * until it shared, up to three gaps: were the turn taken from it, its share would be
	 * refused, and with counts slower than the gap no share would ever land.
	 */
	@Test
	default void aTurnWhoseCountsAreNotSharedYetIsKeptForThreeGaps() {
		ClusterStore cluster = fixture().store().cluster();
		// Three gaps (1.5 s) leave a loaded machine room between the takes below.
		Duration gap = Duration.ofMillis(500);
		OptionalLong slow = cluster.takeCountTurn("slow", gap);
		assertThat(slow).isPresent();
		awaitTurnOlderThan("taken_at", gap);
		assertThat(cluster.takeCountTurn("eager", gap)).as("a turn taken past one gap, its counts not shared").isEmpty();
		assertThat(cluster.shareCounts("slow", slow.getAsLong(), List.of(), Map.of())).isTrue();
		awaitTurnOlderThan("taken_at", gap);
		OptionalLong next = cluster.takeCountTurn("next", gap);
		assertThat(next).as("a turn taken past one gap, its counts shared").isPresent();
		// Its counter stops before it shares: after three gaps the turn passes on.
		awaitTurnOlderThan("taken_at", gap.multipliedBy(3));
		assertThat(cluster.takeCountTurn("after-a-crash", gap)).isPresent();
	}

	/**
	 * Counts shared long ago and a turn taken but never shared (its counter stopped): this
	 * instance counts for itself rather than show counts many intervals old.
	 */
	@Test
	default void sharedCountsManyIntervalsOldAreNotUsed() {
		ClusterStore cluster = fixture().store().cluster();
		OptionalLong old = cluster.takeCountTurn("old", Duration.ZERO);
		assertThat(cluster.shareCounts("old", old.getAsLong(),
				List.of(new QueueCount("counted", JobStatus.QUEUED, 99, Duration.ZERO)), Map.of())).isTrue();
		enqueue(2);
		// Interval 100 ms: the shared counts are more than four intervals old (not used past that),
		// the turn not free for three gaps.
		awaitTurnOlderThan("counted_at", Duration.ofMillis(400));
		assertThat(cluster.takeCountTurn("stopped", Duration.ZERO)).isPresent();
		QueueStats.Snapshot read = stats("reader", Duration.ofMillis(100)).refreshInTurn();
		assertThat(read.jobs("counted", JobStatus.QUEUED)).isEqualTo(2);
	}

	/**
	 * A counter frozen (or cut off) while it holds the turn's row keeps no other instance's
	 * stats pass waiting beyond the store's bounded lock wait: the pass reads the shared
	 * counts, or counts for itself.
	 */
	@Test
	default void aHeldTurnRowKeepsNoOtherInstancesPassWaiting() throws Exception {
		assumeRowLocks();
		enqueue(1);
		try (OpenTransaction<Integer> frozen = OpenTransaction.begin(isolatedDatabase().dataSource(),
				() -> fixture().jdbc().update("UPDATE " + table("queue_count_turn") + " SET counted_by = 'frozen'"))) {
			assertThat(frozen.result()).isEqualTo(1);
			ExecutorService thread = Executors.newSingleThreadExecutor();
			try {
				Future<QueueStats.Snapshot> pass = thread.submit(stats("other", Duration.ofMinutes(1))::refreshInTurn);
				QueueStats.Snapshot read = pass.get(20, TimeUnit.SECONDS);
				assertThat(read.failure()).isNull();
				assertThat(read.jobs("counted", JobStatus.QUEUED)).isEqualTo(1);
			}
			finally {
				thread.shutdownNow();
			}
		}
	}

	@Test
	default void anInstanceWhoseSchemaHasNoSharedCountsCountsForItself() {
		fixture().jdbc().execute("DROP TABLE " + table("queue_count_turn"));
		fixture().jdbc().execute("DROP TABLE " + table("queue_count"));
		enqueue(2);
		QueueStats.Snapshot counted = stats("instance-old-schema", Duration.ofMinutes(1)).refreshInTurn();
		assertThat(counted.failure()).isNull();
		assertThat(counted.jobs("counted", JobStatus.QUEUED)).isEqualTo(2);
		enqueue(1);
		assertThat(stats("another", Duration.ofMinutes(1)).refreshInTurn().jobs("counted", JobStatus.QUEUED)).isEqualTo(3);
	}

}
