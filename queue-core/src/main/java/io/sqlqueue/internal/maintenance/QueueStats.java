package io.sqlqueue.internal.maintenance;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.JobStatus;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.QueueCount;

/**
 * The queue's counts by queue and state, read by one grouped query on a schedule and kept
 * for gauges and health checks, so that looking never queries the database; with them, the
 * paused queues.
 */
public class QueueStats extends PeriodicTask {

	private static final Logger logger = LoggerFactory.getLogger(QueueStats.class);

	private final JobStore store;

	private final @Nullable FlowControl flowControl;

	private volatile Snapshot latest = new Snapshot(List.of(), Map.of(), Set.of(), null, null);

	public QueueStats(JobStore store, TaskScheduler scheduler, Duration interval) {
		this(store, scheduler, interval, null);
	}

	/**
	 * @param flowControl whose limits' throttled jobs are counted too, or {@code null} for none
	 */
	public QueueStats(JobStore store, TaskScheduler scheduler, Duration interval, @Nullable FlowControl flowControl) {
		super(scheduler, interval, "stats");
		this.store = store;
		this.flowControl = flowControl;
	}

	/** Counts are wanted from the start: the first read runs at once. */
	@Override
	protected Duration firstDelay() {
		return Duration.ZERO;
	}

	@Override
	protected void runPass() {
		refresh();
	}

	/** Reads the counts now; a failure is kept in the snapshot (the database is unreachable). */
	public Snapshot refresh() {
		try {
			List<QueueCount> counts = this.store.countsByQueue();
			this.latest = new Snapshot(counts, throttled(), paused(), Instant.now(), null);
		}
		catch (RuntimeException ex) {
			logger.debug("sqlqueue could not read its counts", ex);
			this.latest = new Snapshot(this.latest.counts(), this.latest.throttled(), this.latest.paused(),
					this.latest.sampledAt(), ex);
		}
		return this.latest;
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
	 * @param sampledAt when they were last read successfully, or {@code null} if never
	 * @param failure why the last read failed, or {@code null} if it worked
	 */
	public record Snapshot(List<QueueCount> counts, Map<String, Map<String, Long>> throttled, Set<String> paused,
			@Nullable Instant sampledAt, @Nullable Throwable failure) {

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
