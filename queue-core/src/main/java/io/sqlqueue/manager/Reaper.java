package io.sqlqueue.manager;

import java.time.Duration;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.JobListener;
import io.sqlqueue.store.JobStore;
import io.sqlqueue.store.ReapedJob;

/**
 * Finds running jobs whose lease expired (their worker crashed, hung or lost the database)
 * and re-queues them, or fails them when their attempts are used up. Compares with the
 * database's clock; safe to run on every instance at once.
 */
public class Reaper extends PeriodicTask {

	/** The most jobs one pass reaps; a full pass runs again at once. */
	public static final int BATCH_SIZE = 500;

	private static final Logger logger = LoggerFactory.getLogger(Reaper.class);

	private final JobStore store;

	private final JobListener listener;

	public Reaper(JobStore store, TaskScheduler scheduler, Duration interval) {
		this(store, scheduler, interval, JobListener.NONE);
	}

	public Reaper(JobStore store, TaskScheduler scheduler, Duration interval, JobListener listener) {
		super(scheduler, interval, "reaper");
		this.store = store;
		this.listener = JobListener.guarded(listener);
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

	@Override
	protected void runPass() {
		try {
			while (runOnce().size() == BATCH_SIZE) {
				// A full pass may have left more behind.
			}
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue reaper could not reap expired leases; trying again in {}", interval(), ex);
		}
	}

}
