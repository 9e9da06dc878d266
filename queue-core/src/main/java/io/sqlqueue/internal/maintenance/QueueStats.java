package io.sqlqueue.internal.maintenance;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.JobStatus;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.ClusterStore;
import io.sqlqueue.internal.store.QueueCount;
import io.sqlqueue.internal.store.ReadPace;
import io.sqlqueue.internal.store.SharedCounts;

/**
 * The queue's counts by queue and state, read on a schedule and kept for gauges and health
 * checks, so that looking never queries the database; with them, the paused queues.
 * <p>
 * Counted once for the cluster: each pass, the instance that takes the turn
 * ({@link ClusterStore#takeCountTurn}: free 0.9 interval after it was last taken once that
 * turn's counts were shared, three times that if they never were) counts the jobs (the {@link JobStore#countsByQueue() store's count}, and the due jobs
 * limits hold back) and shares them through {@code queue_count}; the others read those rows.
 * Where nothing was shared yet, or the schema predates {@code queue_count} (an instance that
 * does not migrate), the instance counts for itself, as every instance did before.
 * <p>
 * A count that took long is repeated later ({@link ReadPace}): the turn's gap, and the wait
 * after a pass that counted, become ten times as long as the last count took (this instance's
 * own, or the one it last read from the cluster) when that is longer, up to ten intervals; a
 * pass that reads the shared counts keeps the interval. Counting the queued and running jobs
 * reads their indexes from the head, and while a long transaction holds the database's horizon
 * those reads walk every job claimed since: after some minutes under load a count takes
 * seconds, and every 30 s it had taken up to a fifth of the database's time. Health's
 * {@code sampledAt} tells when they were counted.
 */
public class QueueStats extends PeriodicTask {

	private static final Logger logger = LoggerFactory.getLogger(QueueStats.class);

	private final JobStore store;

	/**
	 * Of the interval: the least time between two turns. A little less than one interval, so
	 * that an instance whose pass comes a little early (its schedule drifts by each pass's own
	 * length) still finds the turn free; several instances' passes then count about once per
	 * interval between them.
	 */
	private static final double TURN_GAP = 0.9;

	/**
	 * Shared counts older than this many intervals are not used. A turn whose counts were not
	 * shared passes to another instance after three gaps ({@link ClusterStore#takeCountTurn}),
	 * so counts this old mean that no instance manages to count for the cluster.
	 */
	private static final int STALE_TURNS = 4;

	private final @Nullable FlowControl flowControl;

	private final @Nullable String instance;

	/** How long the last count took: this instance's own, or the last it read from the cluster. */
	private volatile Duration lastCountTook = Duration.ZERO;

	private volatile Snapshot latest = new Snapshot(List.of(), Map.of(), Set.of(), null, null, null);

	/** Held by each read ({@link #read}). */
	private final Object reading = new Object();

	/** When the read under way began ({@link System#nanoTime()}), or 0 when none is. */
	private volatile long readBegan;

	/** Counts for this instance alone, with no limits' throttled jobs. */
	public QueueStats(JobStore store, TaskScheduler scheduler, Duration interval) {
		this(store, scheduler, interval, null, null);
	}

	/**
	 * @param flowControl whose limits' throttled jobs are counted too, or {@code null} for none
	 * @param instance this instance's id, which takes turns to count for the cluster; or
	 * {@code null} to count on every pass for this instance alone
	 */
	public QueueStats(JobStore store, TaskScheduler scheduler, Duration interval, @Nullable FlowControl flowControl,
			@Nullable String instance) {
		super(scheduler, interval, "stats");
		this.store = store;
		this.flowControl = flowControl;
		this.instance = instance;
	}

	/** Counts are wanted from the start: the first read runs at once. */
	@Override
	protected Duration firstDelay() {
		return Duration.ZERO;
	}

	/**
	 * How often the cluster counts: every interval, or ten times as long as the last count
	 * took if that is longer, up to ten intervals.
	 */
	private Duration pace() {
		return ReadPace.nextWithin(interval(), this.lastCountTook);
	}

	private Duration turnGap() {
		return Duration.ofMillis((long) (pace().toMillis() * TURN_GAP));
	}

	@Override
	protected void runPass() {
		refreshInTurn();
	}

	/**
	 * What each scheduled pass does: counts if it is this instance's turn, else reads the
	 * counts another instance shared; a failure is kept in the snapshot (the database is
	 * unreachable).
	 */
	public Snapshot refreshInTurn() {
		return read(turnGap());
	}

	/**
	 * Counts now, whoever's turn it is, and shares the counts (for a look that must be
	 * current, and for tests); a failure is kept in the snapshot.
	 */
	public Snapshot refresh() {
		return read(Duration.ZERO);
	}

	private Snapshot read(Duration gap) {
		// One read at a time, so that they end in the order they began: a pass begun before a
		// refresh() must not end after it and leave its older counts as the latest. Only the
		// loop reads outside of tests, so nothing else waits here.
		synchronized (this.reading) {
			// A pass that reads what another instance shared reads one small row: it paces nothing.
			paceBy(Duration.ZERO);
			this.readBegan = System.nanoTime();
			try {
				this.latest = (this.instance != null) ? countForTheCluster(this.instance, gap) : countHere();
			}
			catch (RuntimeException ex) {
				logger.debug("sqlqueue could not read its counts", ex);
				this.latest = new Snapshot(this.latest.counts(), this.latest.throttled(), this.latest.paused(),
						this.latest.sampledAt(), this.latest.countedBy(), ex);
			}
			finally {
				this.readBegan = 0;
			}
			refreshed(this.latest);
			return this.latest;
		}
	}

	/**
	 * How long the read under way has taken so far; empty when none is. A database that does
	 * not answer (down, or cut off) keeps a read waiting for a connection or an answer as long
	 * as the pool's and the driver's timeouts allow (HikariCP: 30 s): this says so meanwhile,
	 * without waiting for it.
	 */
	public Optional<Duration> readUnderWay() {
		long began = this.readBegan;
		return (began == 0) ? Optional.empty() : Optional.of(Duration.ofNanos(System.nanoTime() - began));
	}

	/** Called with each new snapshot, on the refreshing thread; does nothing unless overridden. */
	protected void refreshed(Snapshot snapshot) {
	}

	private Snapshot countForTheCluster(String instance, Duration gap) {
		OptionalLong turn = takeTurn(instance, gap);
		if (turn.isPresent()) {
			Snapshot counted = countHere();
			share(instance, turn.getAsLong(), counted);
			return counted;
		}
		if (gap.isZero()) {
			// refresh(): counts now even when the turn could not be had (another instance's pass
			// holds its row at this moment), only without sharing them.
			return countHere();
		}
		SharedCounts shared = shared();
		if (shared == null || !shared.counted() || shared.age().compareTo(pace().multipliedBy(STALE_TURNS)) > 0) {
			// None shared, or none for several intervals (whoever counts cannot, or none of this
			// version runs): this instance's gauges and health go on from counts of its own.
			return countHere();
		}
		if (shared.took() != null) {
			this.lastCountTook = shared.took();
		}
		return new Snapshot(shared.counts(), shared.throttled(), paused(), Instant.now().minus(shared.age()),
				shared.countedBy(), null);
	}

	private OptionalLong takeTurn(String instance, Duration gap) {
		try {
			return this.store.cluster().takeCountTurn(instance, gap);
		}
		catch (RuntimeException ex) {
			// A schema without queue_count_turn, or the turn's row held: the shared counts decide.
			logger.debug("sqlqueue could not take a turn to count", ex);
			return OptionalLong.empty();
		}
	}

	private @Nullable SharedCounts shared() {
		try {
			return this.store.cluster().sharedCounts();
		}
		catch (RuntimeException ex) {
			logger.debug("sqlqueue could not read the shared counts", ex);
			return null;
		}
	}

	private void share(String instance, long turn, Snapshot counted) {
		try {
			if (!this.store.cluster().shareCounts(instance, turn, counted.counts(), counted.throttled())) {
				logger.debug("sqlqueue counted past its turn {}: another instance counts now", turn);
			}
		}
		catch (RuntimeException ex) {
			logger.debug("sqlqueue could not share its counts", ex);
		}
	}

	private Snapshot countHere() {
		long start = System.nanoTime();
		try {
			return new Snapshot(this.store.countsByQueue(), throttled(), paused(), Instant.now(), this.instance, null);
		}
		finally {
			// A count that failed after long (a statement timeout) is paced as one that worked.
			this.lastCountTook = Duration.ofNanos(System.nanoTime() - start);
			paceBy(this.lastCountTook);
		}
	}

	/**
	 * The paused queues; those read last when they cannot be read (a schema without
	 * {@code queue_paused} has none): that alone makes the counts no less healthy.
	 */
	private Set<String> paused() {
		try {
			return Set.copyOf(this.store.cluster().pausedQueues());
		}
		catch (RuntimeException ex) {
			logger.debug("sqlqueue could not read its paused queues", ex);
			return this.latest.paused();
		}
	}

	private Map<String, Map<String, Long>> throttled() {
		return (this.flowControl != null) ? this.flowControl.throttled() : Map.of();
	}

	/** The counts as last read. */
	public Snapshot latest() {
		return this.latest;
	}

	/**
	 * Counts as last read.
	 * @param throttled due jobs that limits hold back, per limited queue and by the limit that
	 * does (see {@link FlowControl#throttled()})
	 * @param paused the queues paused across the cluster (no instance claims their jobs)
	 * @param sampledAt when they were last counted, or {@code null} if never
	 * @param countedBy the instance that counted them (this one or another), or {@code null}
	 * when not known (counted here by a {@link QueueStats} without an instance id)
	 * @param failure why the last read failed, or {@code null} if it worked
	 */
	public record Snapshot(List<QueueCount> counts, Map<String, Map<String, Long>> throttled, Set<String> paused,
			@Nullable Instant sampledAt, @Nullable String countedBy, @Nullable Throwable failure) {

		/** Whether the queue was paused when last read. */
		public boolean isPaused(String queue) {
			return this.paused.contains(queue);
		}

		/** Due jobs of the queue that this limit holds back ({@code queue-concurrency}, {@code key-rate}, …). */
		public long throttled(String queue, String limit) {
			return this.throttled.getOrDefault(queue, Map.of()).getOrDefault(limit, 0L);
		}

		public long jobs(String queue, JobStatus status) {
			return this.counts.stream()
				.filter((count) -> count.queue().equals(queue) && count.status() == status)
				.mapToLong(QueueCount::jobs)
				.sum();
		}

		/** How long the oldest due job of the queue has waited; zero when none waits. */
		public Duration oldestDueAge(String queue) {
			return this.counts.stream()
				.filter((count) -> count.queue().equals(queue) && count.status() == JobStatus.QUEUED)
				.map(QueueCount::oldestDueAge)
				.findFirst()
				.orElse(Duration.ZERO);
		}

		public List<String> queues() {
			return this.counts.stream().map(QueueCount::queue).distinct().sorted().toList();
		}

	}

}
