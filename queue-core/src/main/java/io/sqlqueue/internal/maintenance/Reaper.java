package io.sqlqueue.internal.maintenance;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.ExpiredJob;
import io.sqlqueue.JobListener;
import io.sqlqueue.ReapedJob;
import io.sqlqueue.internal.store.JobStore;

/**
 * Finds running jobs whose lease expired (their worker crashed, hung or lost the database)
 * and re-queues them, counting a crash; fails them when their attempts are used up or they
 * crashed {@code maxCrashes} times (a poison job that kills its worker's JVM would
 * otherwise take down instance after instance), and cancels them when their cancel was
 * asked for. In the same pass it cancels queued jobs whose deadline passed. Compares with
 * the database's clock; safe to run on every instance at once. It never waits for a job's
 * row that another transaction holds, and waits at most {@link JobStore#OWN_LOCK_WAIT} for
 * another row that settling a job's end needs: such jobs are ended at a later pass.
 * <p>
 * A pass whose first batches took long is followed by the next after ten times as long, when
 * that is longer than the interval, up to ten intervals ({@link PeriodicTask#paceBy}): the
 * expired leases are read from the head of the lease index, and while a long transaction holds the
 * database's horizon that read walks the entry of every job that ran since (about 10 s of the
 * database's time a minute in the held overload run, at a pass every 15 s). A lease expired
 * meanwhile is reaped that much later.
 */
public class Reaper extends PeriodicTask {

	/** The most jobs one pass reaps; a full pass runs again at once. */
	public static final int BATCH_SIZE = 500;

	private static final Logger logger = LoggerFactory.getLogger(Reaper.class);

	private final JobStore store;

	/** How many lost workers a job survives by default ({@code sqlqueue.retry.max-crashes}). */
	public static final int DEFAULT_MAX_CRASHES = 3;

	private final JobListener listener;

	private final int maxCrashes;

	public Reaper(JobStore store, TaskScheduler scheduler, Duration interval) {
		this(store, scheduler, interval, JobListener.NONE);
	}

	public Reaper(JobStore store, TaskScheduler scheduler, Duration interval, JobListener listener) {
		this(store, scheduler, interval, DEFAULT_MAX_CRASHES, listener);
	}

	public Reaper(JobStore store, TaskScheduler scheduler, Duration interval, int maxCrashes, JobListener listener) {
		super(scheduler, interval, "reaper");
		if (maxCrashes < 1) {
			throw new IllegalArgumentException("maxCrashes must be at least 1, got " + maxCrashes);
		}
		this.store = store;
		this.maxCrashes = maxCrashes;
		this.listener = JobListener.guarded(listener);
	}

	/** One pass over leases: reaps up to {@link #BATCH_SIZE} expired ones; returns what it reaped. */
	public List<ReapedJob> runOnce() {
		List<ReapedJob> reaped = this.store.reapExpired(BATCH_SIZE, this.maxCrashes);
		for (ReapedJob job : reaped) {
			this.listener.reaped(job);
			switch (job.status()) {
				case QUEUED -> logger.info("Job {} ({}) re-queued: its lease held by {} expired (crash {} of {})",
						job.id(), job.handler(), job.previousOwner(), job.crashes(), this.maxCrashes);
				case CANCELLED -> logger.info("Job {} ({}) cancelled as asked: its lease held by {} expired", job.id(),
						job.handler(), job.previousOwner());
				default -> logger.warn("Job {} ({}) failed for good: its lease held by {} expired: {}", job.id(),
						job.handler(), job.previousOwner(), job.error());
			}
		}
		return reaped;
	}

	/** One pass over deadlines: cancels up to {@link #BATCH_SIZE} queued jobs whose deadline passed. */
	public List<ExpiredJob> expireOnce() {
		List<ExpiredJob> expired = this.store.expirePassedDeadlines(BATCH_SIZE);
		for (ExpiredJob job : expired) {
			this.listener.expired(job);
			logger.info("Job {} ({}) cancelled: its deadline {} passed before it started", job.id(), job.handler(),
					job.deadline());
		}
		return expired;
	}

	/**
	 * Reaps, then expires, each in batches until one comes back short. Only the first batch of
	 * each is timed for the pace: it is what reads the index from its head, where more batches
	 * after a crash are more work to do, not a longer walk.
	 */
	@Override
	protected void runPass() {
		long[] firstBatches = { 0 };
		try {
			if (timed(this::runOnce, firstBatches) == BATCH_SIZE) {
				while (runOnce().size() == BATCH_SIZE) {
					// A full pass may have left more behind.
				}
			}
			if (timed(this::expireOnce, firstBatches) == BATCH_SIZE) {
				while (expireOnce().size() == BATCH_SIZE) {
					// As above.
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue reaper could not reap expired leases or deadlines", ex);
		}
		finally {
			paceBy(Duration.ofNanos(firstBatches[0]));
		}
	}

	/** Runs one batch, adding its time to {@code nanos} even when it fails (a statement timeout is slow too). */
	private static int timed(Supplier<List<?>> batch, long[] nanos) {
		long start = System.nanoTime();
		try {
			return batch.get().size();
		}
		finally {
			nanos[0] += System.nanoTime() - start;
		}
	}

}
