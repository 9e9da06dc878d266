package io.sqlqueue.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.JobListener;
import io.sqlqueue.store.JobStore;
import io.sqlqueue.store.ReapedJob;

/**
 * Finds running jobs whose lease expired (their worker crashed, hung or lost the database)
 * and re-queues them, or fails them when their attempts are used up. Compares with the
 * database's clock; safe to run on every instance at once.
 */
public class Reaper implements SmartLifecycle {

	/** The most jobs one pass reaps; a full pass runs again at once. */
	public static final int BATCH_SIZE = 500;

	private static final Logger logger = LoggerFactory.getLogger(Reaper.class);

	private final JobStore store;

	private final TaskScheduler scheduler;

	private final Duration interval;

	private final JobListener listener;

	private @Nullable ScheduledFuture<?> task;

	public Reaper(JobStore store, TaskScheduler scheduler, Duration interval) {
		this(store, scheduler, interval, JobListener.NONE);
	}

	public Reaper(JobStore store, TaskScheduler scheduler, Duration interval, JobListener listener) {
		if (interval.isNegative() || interval.isZero()) {
			throw new IllegalArgumentException("The reaper's interval must be positive");
		}
		this.store = store;
		this.scheduler = scheduler;
		this.interval = interval;
		this.listener = listener;
	}

	@Override
	public synchronized void start() {
		if (this.task == null) {
			this.task = this.scheduler.scheduleWithFixedDelay(this::runSafely, Instant.now().plus(this.interval),
					this.interval);
		}
	}

	@Override
	public synchronized void stop() {
		if (this.task != null) {
			this.task.cancel(false);
			this.task = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.task != null;
	}

	/** One pass: reaps up to {@link #BATCH_SIZE} expired leases; returns what it reaped. */
	public List<ReapedJob> runOnce() {
		List<ReapedJob> reaped = this.store.reapExpired(BATCH_SIZE);
		for (ReapedJob job : reaped) {
			this.listener.reaped(job);
			if (job.failed()) {
				logger.warn("Job {} ({}) failed for good: its lease held by {} expired on its last attempt", job.id(),
						job.handler(), job.previousOwner());
			}
			else {
				logger.info("Job {} ({}) re-queued: its lease held by {} expired", job.id(), job.handler(),
						job.previousOwner());
			}
		}
		return reaped;
	}

	private void runSafely() {
		try {
			while (runOnce().size() == BATCH_SIZE) {
				// A full pass may have left more behind.
			}
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue reaper could not reap expired leases; trying again in {}", this.interval, ex);
		}
	}

}
