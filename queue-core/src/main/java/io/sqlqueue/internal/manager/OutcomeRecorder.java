package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobOutcome;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.internal.store.EndReasons;
import io.sqlqueue.internal.store.JobStore;

/**
 * Writes how an attempt ended — retried with backoff, or failed for good — fenced by its
 * lease, and tells the listener; a write that finds the lease lost is counted and logged.
 * Successes go through the {@link Completer}, which reports back here.
 * <p>
 * A write that fails for a transient reason (the database away: a failover, a restart) is
 * tried again on the calling thread, with growing waits, for as long as the attempt's lease
 * surely holds (see {@link DatabaseErrors#retryWait}); if a try finds the lease gone, the row is asked
 * whether the first write had landed after all (its answer lost to a failover), and only
 * otherwise is the lease counted as lost. A write the database refuses for its error text
 * is made again with a plain one.
 */
final class OutcomeRecorder {

	private static final Logger logger = LoggerFactory.getLogger(OutcomeRecorder.class);

	private final JobStore store;

	private final RetryPolicy retryPolicy;

	private final JobListener listener;

	private final AtomicLong leaseLosses = new AtomicLong();

	private final LeaseDoubt doubt = new LeaseDoubt();

	OutcomeRecorder(JobStore store, RetryPolicy retryPolicy, JobListener listener) {
		this.store = store;
		this.retryPolicy = retryPolicy;
		this.listener = listener;
	}

	/** When this Manager last found the database away, which every part that talks to it tells. */
	LeaseDoubt doubt() {
		return this.doubt;
	}

	/** The Completer recorded (or failed to record, the lease being lost) a success. */
	void completed(Attempt attempt, boolean held) {
		if (held) {
			attempt.endedAs(JobOutcome.SUCCEEDED);
			this.listener.finished(attempt.job, JobOutcome.SUCCEEDED, attempt.runningFor());
		}
		else {
			leaseLost(attempt, "recording succeeded");
		}
	}

	void failed(Attempt attempt, Throwable failure, boolean timedOut) {
		if (attempt.isStopping()) {
			stopped(attempt, failure);
			return;
		}
		failed(attempt, failure, timedOut, false);
	}

	/**
	 * The instance stops and interrupted the handler past the shutdown timeout, and the handler
	 * ended by throwing: the job goes back to {@code QUEUED}, due at once, with no attempt spent
	 * and no crash counted; its last error says it was stopped. Logged without a stack trace:
	 * it is the expected end of a stop.
	 */
	private void stopped(Attempt attempt, Throwable failure) {
		logger.info("{} given back: its instance stopped while it ran ({})", attempt, failure.getClass().getSimpleName());
		write(attempt, JobOutcome.STOPPED, List.of(EndReasons.STOPPED_WHILE_RUNNING),
				(text) -> this.store.giveBackStopped(attempt.lease, text));
	}

	/**
	 * As {@link #failed(Attempt, Throwable, boolean)}; {@code successMayHaveLanded} when the
	 * attempt's success was written in a transaction whose outcome is not known (its connection
	 * was lost at commit, and the look-up of the row failed too): a failure write that then
	 * finds the row finished under the attempt's token learns that the success landed.
	 */
	private void failed(Attempt attempt, Throwable failure, boolean timedOut, boolean successMayHaveLanded) {
		String error = ErrorText.describe(failure);
		String plainError = ErrorText.of(failure.getClass().getName()
				+ " (its message could not be stored; see this instance's log)");
		int attempts = attempt.job.attempts();
		if (!timedOut && attempt.handler.isNonRetryable(failure)) {
			logger.warn("{} failed for good (not retryable): {}", attempt, ErrorText.of(failure.toString()));
			write(attempt, JobOutcome.FAILED, List.of(error, plainError), successMayHaveLanded,
					(text) -> this.store.fail(attempt.lease, text));
		}
		else if (attempts >= attempt.job.maxAttempts()) {
			logger.warn("{} failed for good (attempts used up): {}", attempt, ErrorText.of(failure.toString()));
			write(attempt, JobOutcome.FAILED, List.of(error, plainError), successMayHaveLanded,
					(text) -> this.store.fail(attempt.lease, text));
		}
		else {
			Duration backoff = this.retryPolicy.backoff(attempts);
			logger.debug("{} failed; retrying in {}: {}", attempt, backoff, failure.toString());
			write(attempt, JobOutcome.RETRIED, List.of(error, plainError), successMayHaveLanded,
					(text) -> this.store.reschedule(attempt.lease, text, backoff));
		}
	}

	/**
	 * A transactional handler returned, but the transaction that was to record its success
	 * failed (a deadlock while its end settled dependents, a constraint checked at commit, a
	 * connection lost at commit) and rolled back the handler's writes. Unless the success had
	 * landed after all (a commit whose answer was lost), the attempt failed: it is retried by
	 * the retry policy, with that error as the job's last error, and is no crash. Its write is
	 * fenced as any other: if the lease was lost meanwhile, nothing changes, and the loss is
	 * counted.
	 */
	void completionFailed(Attempt attempt, RuntimeException failure) {
		if (landed(attempt)) {
			completed(attempt, true);
			return;
		}
		logger.warn("{} returned, but its transaction failed; recording the attempt as failed", attempt, failure);
		failed(attempt, failure, false, true);
	}

	/**
	 * The handler parked its job: it is {@code QUEUED} again until the park ends, no attempt
	 * spent; or {@code CANCELLED} when its cancel was asked for meanwhile. A park that waits for a signal looks for it once it committed: a signal whose
	 * own wake came while the job still ran is found here (see {@code StepStore}).
	 */
	void parked(Attempt attempt, Park park) {
		logger.debug("{} parked", attempt);
		// A park leaves alone a job whose cancel was asked for: that job ends CANCELLED instead.
		writeEnding(attempt, JobOutcome.PARKED, List.of(EndReasons.CANCELLED_WHILE_RUNNING), false, (text) -> {
			if (this.store.park(attempt.lease, park.kind, park.name, park.delay)) {
				return JobOutcome.PARKED;
			}
			return this.store.cancelRunning(attempt.lease, text) ? JobOutcome.CANCELLED : null;
		});
		String signal = park.awaitedSignal();
		if (signal != null && attempt.outcome() == JobOutcome.PARKED) {
			// A wake that fails (the row held by another transaction) is tried again later.
			this.store.steps().wakeOrRetryLater(attempt.job.id(), signal, attempt.job.queue());
		}
	}

	/** The attempt's cancel was asked for: the job ends {@code CANCELLED}, never retried. */
	void cancelled(Attempt attempt) {
		logger.info("{} cancelled as asked", attempt);
		write(attempt, JobOutcome.CANCELLED, List.of(EndReasons.CANCELLED_WHILE_RUNNING),
				(text) -> this.store.cancelRunning(attempt.lease, text));
	}

	/** The job's deadline passed before it could start: it ends {@code CANCELLED}, never started. */
	void expired(Attempt attempt) {
		Instant deadline = attempt.job.deadline();
		logger.info("{} not started: its deadline {} passed", attempt, deadline);
		write(attempt, JobOutcome.EXPIRED, List.of(EndReasons.deadlinePassed(Objects.requireNonNull(deadline))),
				(text) -> this.store.cancelRunning(attempt.lease, text));
	}

	void leaseLost(Attempt attempt, String during) {
		if (attempt.markLeaseLost()) {
			this.listener.leaseLost(attempt.job);
			this.leaseLosses.incrementAndGet();
			logger.warn("Lease of {} was lost ({}): the job was handed to another worker or changed by an operator; "
					+ "this attempt's outcome is not recorded", attempt, during);
		}
	}

	long leaseLosses() {
		return this.leaseLosses.get();
	}

	/**
	 * Tries the write with each error text in turn while the database refuses the text, and
	 * again after a wait while the database is away.
	 */
	private void write(Attempt attempt, JobOutcome outcome, List<String> errors, FencedWrite write) {
		write(attempt, outcome, errors, false, write);
	}

	private void write(Attempt attempt, JobOutcome outcome, List<String> errors, boolean successMayHaveLanded,
			FencedWrite write) {
		writeEnding(attempt, outcome, errors, successMayHaveLanded, (text) -> write.held(text) ? outcome : null);
	}

	/**
	 * As above, for a write that may end the attempt otherwise than {@code outcome} (a park
	 * that finds the job's cancel asked for): the write says how it ended, or null when its
	 * lease was lost.
	 */
	private void writeEnding(Attempt attempt, JobOutcome outcome, List<String> errors, boolean successMayHaveLanded,
			OutcomeWrite write) {
		int texts = 0;
		int failures = 0;
		while (true) {
			try {
				JobOutcome ended = write.ended(errors.get(texts));
				if (ended == null && failures > 0 && landed(attempt)) {
					ended = outcome;
				}
				if (ended != null) {
					if (failures > 0) {
						logger.info("Recorded {} as {} after {} failed tries", attempt, outcome.tag(), failures);
					}
					attempt.endedAs(ended);
					this.listener.finished(attempt.job, ended, attempt.runningFor());
				}
				else if (successMayHaveLanded && landed(attempt)) {
					completed(attempt, true);
				}
				else {
					leaseLost(attempt, "recording " + outcome.tag());
				}
				return;
			}
			catch (RuntimeException ex) {
				Duration wait = DatabaseErrors.retryWait(failures);
				if (DatabaseErrors.isTransient(ex)) {
					this.doubt.databaseAway();
				}
				if (DatabaseErrors.isTransient(ex) && DatabaseErrors.worthTryingAgain(attempt, wait)) {
					// Once per outage with its cause; the further tries while it lasts only at DEBUG.
					if (failures++ == 0) {
						logger.warn("Could not record {} as {}; trying again while its lease holds: {}", attempt,
								outcome.tag(), ex.toString());
					}
					else {
						logger.debug("Could not record {} as {} (try {}); trying again in {}", attempt, outcome.tag(),
								failures, wait, ex);
					}
					sleep(wait);
				}
				else if (!DatabaseErrors.isTransient(ex) && texts + 1 < errors.size()) {
					texts++;
					logger.warn("Could not record {} as {} with its error text; recording a plain one", attempt,
							outcome.tag(), ex);
				}
				else {
					logger.error("Could not record {} as {} ({} tries); it runs again after its lease expires",
							attempt, outcome.tag(), failures + 1, ex);
					return;
				}
			}
		}
	}

	/** Whether an earlier try of this attempt's write landed although its answer was lost. */
	private boolean landed(Attempt attempt) {
		try {
			return this.store.finishedUnder(List.of(attempt.lease)).contains(attempt.lease);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not look up whether {} was recorded", attempt, ex);
			return false;
		}
	}

	/** Waits, whatever interrupts: a timed-out handler's interrupt must not cut the retries short. */
	private static void sleep(Duration wait) {
		// A pending interrupt would make every park return at once: set it aside, then restore it.
		boolean interrupted = Thread.interrupted();
		long deadline = System.nanoTime() + wait.toNanos();
		for (long left = wait.toNanos(); left > 0; left = deadline - System.nanoTime()) {
			LockSupport.parkNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
			interrupted |= Thread.interrupted();
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	@FunctionalInterface
	private interface FencedWrite {

		boolean held(String errorText);

	}

	@FunctionalInterface
	private interface OutcomeWrite {

		@Nullable JobOutcome ended(String errorText);

	}

}
