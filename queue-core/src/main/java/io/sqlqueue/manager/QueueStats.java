package io.sqlqueue.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.JobStatus;
import io.sqlqueue.store.JobStore;
import io.sqlqueue.store.QueueCount;

/**
 * The queue's counts by queue and state, read by one grouped query on a schedule and kept
 * for gauges and health checks, so that looking never queries the database.
 */
public class QueueStats extends PeriodicTask {

	private static final Logger logger = LoggerFactory.getLogger(QueueStats.class);

	private final JobStore store;

	private volatile Snapshot latest = new Snapshot(List.of(), null, null);

	public QueueStats(JobStore store, TaskScheduler scheduler, Duration interval) {
		super(scheduler, interval, "stats");
		this.store = store;
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
			this.latest = new Snapshot(this.store.countsByQueue(), Instant.now(), null);
		}
		catch (RuntimeException ex) {
			logger.debug("sqlqueue could not read its counts", ex);
			this.latest = new Snapshot(this.latest.counts(), this.latest.sampledAt(), ex);
		}
		return this.latest;
	}

	/** The counts as last read. */
	public Snapshot latest() {
		return this.latest;
	}

	/**
	 * Counts as last read.
	 * @param sampledAt when they were last read successfully, or {@code null} if never
	 * @param failure why the last read failed, or {@code null} if it worked
	 */
	public record Snapshot(List<QueueCount> counts, @Nullable Instant sampledAt, @Nullable Throwable failure) {

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
