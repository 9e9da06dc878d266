package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobRecord;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.store.Lease;

/**
 * One claimed job on its way through a worker. It starts once (or is released unstarted
 * at shutdown), and its outcome is written once: by the worker, or by the timeout
 * sweep, whichever settles it first.
 */
final class Attempt {

	enum State {

		CLAIMED, RUNNING, RELEASED

	}

	final JobRecord job;

	final Lease lease;

	final HandlerDefinition handler;

	final Lane lane;

	private final AtomicReference<State> state = new AtomicReference<>(State.CLAIMED);

	private final AtomicBoolean settled = new AtomicBoolean();

	private final AtomicBoolean leaseLost = new AtomicBoolean();

	private final AtomicBoolean cancelRequested = new AtomicBoolean();

	/** Its instance stops and interrupted the handler: a failure now is a give-back, not an attempt spent. */
	private volatile boolean stopping;

	/**
	 * Until when the job may surely still start before its deadline, by this JVM's monotonic
	 * clock; {@code Long.MAX_VALUE} without a deadline.
	 */
	private final long startSureBeforeNanos;

	private volatile @Nullable Thread worker;

	private volatile long startedNanos;

	/** Until when the lease surely holds, by this JVM's monotonic clock (see {@link #leaseHoldsFor}). */
	private volatile long leaseSureUntilNanos;

	/** When the last statement that found the lease held was sent: the claim, or a heartbeat (see {@link LeaseDoubt}). */
	private volatile long confirmedSentNanos;

	private boolean handlerReturned;

	/** How the attempt ended, once its outcome was decided here (for its observation). */
	private volatile @Nullable JobOutcome outcome;

	/**
	 * @param claimSentNanos {@link System#nanoTime()} before the claim was sent: its lease
	 * runs from a moment after that on the database's clock
	 */
	Attempt(JobRecord job, HandlerDefinition handler, Lane lane, long claimSentNanos, Duration leaseDuration) {
		this.job = job;
		this.leaseSureUntilNanos = claimSentNanos + leaseDuration.toNanos();
		this.confirmedSentNanos = claimSentNanos;
		this.startSureBeforeNanos = startSureBefore(job, claimSentNanos);
		this.lease = new Lease(job.id(), requireToken(job));
		this.handler = handler;
		this.lane = lane;
	}

	/**
	 * The claim saw the database's clock at {@code startedAt}, at a moment after
	 * {@code claimSentNanos}: counting what was left to the deadline from before the claim
	 * was sent can only err on the side of not starting.
	 */
	private static long startSureBefore(JobRecord job, long claimSentNanos) {
		Instant deadline = job.deadline();
		if (deadline == null) {
			return Long.MAX_VALUE;
		}
		Instant claimedAt = (job.startedAt() != null) ? job.startedAt() : job.runAt();
		long left = Duration.between(claimedAt, deadline).toNanos();
		return claimSentNanos + Math.max(0, left);
	}

	/** Whether the job's deadline may have passed, so it must not start. */
	boolean pastDeadline() {
		return this.startSureBeforeNanos != Long.MAX_VALUE && System.nanoTime() - this.startSureBeforeNanos >= 0;
	}

	/** True the first time a cancel of this attempt is asked for. */
	boolean requestCancel() {
		return this.cancelRequested.compareAndSet(false, true);
	}

	boolean isCancelRequested() {
		return this.cancelRequested.get();
	}

	/** At stop, past the shutdown timeout: interrupts the handler, whose failure then gives the job back. */
	void stop() {
		this.stopping = true;
		interrupt();
	}

	boolean isStopping() {
		return this.stopping;
	}

	private static long requireToken(JobRecord job) {
		Long token = job.leaseToken();
		if (token == null) {
			throw new IllegalStateException("Claimed job " + job.id() + " has no lease token");
		}
		return token;
	}

	/**
	 * A heartbeat sent at {@code sentNanos} extended the lease: it runs at least
	 * {@code leaseDuration} from then.
	 */
	void leaseExtended(long sentNanos, Duration leaseDuration) {
		this.leaseSureUntilNanos = Math.max(this.leaseSureUntilNanos, sentNanos + leaseDuration.toNanos());
		if (sentNanos - this.confirmedSentNanos > 0) {
			this.confirmedSentNanos = sentNanos;
		}
	}

	/** When the last statement that found the lease held (the claim, a heartbeat) was sent, by {@link System#nanoTime()}. */
	long confirmedSentNanos() {
		return this.confirmedSentNanos;
	}

	/**
	 * Whether the lease surely holds for {@code margin} more, by this JVM's monotonic clock:
	 * counted from before the claim or heartbeat was sent, so a frozen JVM, a long GC pause
	 * or a stalled database can only make it err on the safe side.
	 */
	boolean leaseHoldsFor(Duration margin) {
		return this.leaseSureUntilNanos - System.nanoTime() > margin.toNanos();
	}

	/**
	 * On the worker thread: false when the attempt was released before it could start, or
	 * when its lease was found lost first (see {@link #markLeaseLost}): a job whose lease this
	 * instance knows lost may run elsewhere already, and must not start here too.
	 */
	synchronized boolean start() {
		if (this.leaseLost.get()) {
			return false;
		}
		this.worker = Thread.currentThread();
		this.startedNanos = System.nanoTime();
		return this.state.compareAndSet(State.CLAIMED, State.RUNNING);
	}

	/** At shutdown: true when the attempt had not started and now never will. */
	boolean release() {
		return this.state.compareAndSet(State.CLAIMED, State.RELEASED);
	}

	/** Given back unstarted at shutdown: its lease ended with the give-back, not lost. */
	boolean isReleased() {
		return this.state.get() == State.RELEASED;
	}

	/** How long the handler has run (zero before it started). */
	Duration runningFor() {
		return (this.startedNanos != 0) ? Duration.ofNanos(System.nanoTime() - this.startedNanos) : Duration.ZERO;
	}

	boolean isRunning() {
		return this.state.get() == State.RUNNING;
	}

	/** True for the one caller that gets to write the outcome. */
	boolean settle() {
		return this.settled.compareAndSet(false, true);
	}

	boolean isSettled() {
		return this.settled.get();
	}

	/**
	 * True the first time the lease is found lost, so that each loss is counted once. Under
	 * the same lock as {@link #start}: an attempt either started before its loss was known, or
	 * never starts.
	 */
	synchronized boolean markLeaseLost() {
		return this.leaseLost.compareAndSet(false, true);
	}

	/** Whether this instance found the lease lost (by a heartbeat or a fenced write). */
	boolean isLeaseLost() {
		return this.leaseLost.get();
	}

	/** Interrupts the handler, unless it has returned (its thread may already run the next job). */
	synchronized void interrupt() {
		Thread thread = this.worker;
		if (thread != null && !this.handlerReturned) {
			thread.interrupt();
		}
	}

	/** The handler returned or threw: from now on its thread is not this attempt's to interrupt. */
	synchronized void handlerReturned() {
		this.handlerReturned = true;
	}

	/** Whether the handler returned or threw: its context no longer acts for it. */
	synchronized boolean hasHandlerReturned() {
		return this.handlerReturned;
	}

	/** The attempt ended as {@code outcome}: a success handed to be recorded, or a recorded failure. */
	void endedAs(JobOutcome outcome) {
		this.outcome = outcome;
	}

	@Nullable JobOutcome outcome() {
		return this.outcome;
	}

	@Override
	public String toString() {
		return "job " + this.job.id() + " (" + this.job.handler() + ", attempt " + this.job.attempts() + "/"
				+ this.job.maxAttempts() + ")";
	}

}
