package io.sqlqueue.internal.maintenance;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.internal.store.ReadPace;

/**
 * The shape every background loop of the queue shares: {@code start} and {@code stop} only
 * schedule a bounded pass at a fixed delay; the pass itself ({@link #runPass()}) never
 * throws. Starting or stopping twice, or stopping before starting, is harmless; tests call
 * the pass directly instead of waiting for the schedule.
 * <p>
 * Each pass is scheduled once, the next when it ends, not as one fixed-delay task: a
 * scheduler that runs every task on a new (virtual) thread then runs the passes of different
 * loops side by side, where Spring's {@code SimpleAsyncTaskScheduler} would run every
 * fixed-delay task on its one scheduler thread, so that one pass waiting on a lock would
 * stop every other loop. On a pool, each loop occupies at most one thread at a time.
 */
public abstract class PeriodicTask implements SmartLifecycle {

	private final TaskScheduler scheduler;

	private final Duration interval;

	private @Nullable ScheduledFuture<?> task;

	/** Identifies the current run, so that a pass of an earlier one (stopped meanwhile) schedules no next. */
	private @Nullable Object run;

	/** Whether a scheduled pass is under way (see {@link #awaitPass()}). */
	private boolean passing;

	/** The thread of the pass under way, which must not wait for itself at {@link #stop()}. */
	private @Nullable Thread passThread;

	/** How long the last pass's reads from an index's head took ({@link #paceBy}); zero paces nothing. */
	private volatile Duration readsTook = Duration.ZERO;

	protected PeriodicTask(TaskScheduler scheduler, Duration interval, String what) {
		if (interval.isNegative() || interval.isZero()) {
			throw new IllegalArgumentException("The interval of the " + what + " must be positive");
		}
		this.scheduler = scheduler;
		this.interval = interval;
	}

	@Override
	public synchronized void start() {
		if (this.task == null && hasWork()) {
			Object run = new Object();
			this.run = run;
			this.task = this.scheduler.schedule(() -> pass(run), Instant.now().plus(firstDelay()));
		}
	}

	private void pass(Object run) {
		synchronized (this) {
			if (this.run != run) {
				return;
			}
			this.passing = true;
			this.passThread = Thread.currentThread();
		}
		try {
			runPass();
		}
		finally {
			synchronized (this) {
				this.passing = false;
				this.passThread = null;
				notifyAll();
				if (this.run == run) {
					try {
						this.task = this.scheduler.schedule(() -> pass(run), Instant.now().plus(nextWait()));
					}
					catch (RuntimeException ex) {
						// The scheduler was shut down before this loop was stopped: the application is closing.
						this.run = null;
						this.task = null;
					}
				}
			}
		}
	}

	/**
	 * Schedules no further pass, and waits up to {@link #STOP_WAIT} for one under way to end:
	 * the application stops its loops before it closes the pool, so a pass that ends meanwhile
	 * ends with its connections open instead of failing, with a stack trace, as the pool closes
	 * under it (a rolling deploy stops instances all the time).
	 */
	@Override
	public synchronized void stop() {
		this.run = null;
		if (this.task != null) {
			this.task.cancel(false);
			this.task = null;
		}
		long until = System.nanoTime() + STOP_WAIT.toNanos();
		while (this.passing && this.passThread != Thread.currentThread()) {
			long left = until - System.nanoTime();
			if (left <= 0) {
				return;
			}
			try {
				wait(Math.max(1, left / 1_000_000));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/** The longest {@link #stop()} waits for a pass under way; a longer one (a vacuum) is left to fail. */
	static final Duration STOP_WAIT = Duration.ofSeconds(5);

	/**
	 * After {@link #stop()}: waits for a scheduled pass under way to end, so that none runs
	 * once this returns (for a loop whose pass must not outlive its owner's stop).
	 */
	protected final synchronized void awaitPass() {
		while (this.passing) {
			try {
				wait();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.task != null;
	}

	/** The wait between two passes, read after each: the interval given, unless a task works it out. */
	protected Duration interval() {
		return this.interval;
	}

	/**
	 * The wait before the next pass: the interval, or ten times as long as the last pass's
	 * reads from an index's head took if that is longer, ten intervals at most ({@link ReadPace}).
	 */
	private Duration nextWait() {
		return ReadPace.nextWithin(interval(), this.readsTook);
	}

	/**
	 * For a pass that reads an index from its head, which a long transaction holding the
	 * database's horizon makes slower by the minute: how long those reads took this pass (zero
	 * when it made none), which the wait before the next follows ({@link ReadPace}).
	 */
	protected final void paceBy(Duration took) {
		this.readsTook = took;
	}

	/** Whether there is anything to schedule at all. */
	protected boolean hasWork() {
		return true;
	}

	/** How long after start the first pass runs: one interval, unless a task needs it sooner. */
	protected Duration firstDelay() {
		return interval();
	}

	/** One scheduled pass; it logs its failures instead of throwing them. */
	protected abstract void runPass();

}
