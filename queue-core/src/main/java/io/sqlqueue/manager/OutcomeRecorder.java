package io.sqlqueue.manager;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobOutcome;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.store.JobStore;

/**
 * Writes how an attempt ended — retried with backoff, or failed for good — fenced by its
 * lease, and tells the listener; a write that finds the lease lost is counted and logged.
 * Successes go through the {@link Completer}, which reports back here.
 */
final class OutcomeRecorder {

	private static final Logger logger = LoggerFactory.getLogger(OutcomeRecorder.class);

	private final JobStore store;

	private final RetryPolicy retryPolicy;

	private final JobListener listener;

	private final AtomicLong leaseLosses = new AtomicLong();

	OutcomeRecorder(JobStore store, RetryPolicy retryPolicy, JobListener listener) {
		this.store = store;
		this.retryPolicy = retryPolicy;
		this.listener = listener;
	}

	/** The Completer recorded (or failed to record, the lease being lost) a success. */
	void completed(Attempt attempt, boolean held) {
		if (held) {
			this.listener.finished(attempt.job, JobOutcome.SUCCEEDED, attempt.runningFor());
		}
		else {
			leaseLost(attempt, "recording succeeded");
		}
	}

	void failed(Attempt attempt, Throwable failure, boolean timedOut) {
		String error = describe(failure);
		int attempts = attempt.job.attempts();
		if (!timedOut && attempt.handler.isNonRetryable(failure)) {
			logger.warn("{} failed for good (not retryable): {}", attempt, failure.toString());
			write(attempt, JobOutcome.FAILED, () -> this.store.fail(attempt.lease, error));
		}
		else if (attempts >= attempt.job.maxAttempts()) {
			logger.warn("{} failed for good (attempts used up): {}", attempt, failure.toString());
			write(attempt, JobOutcome.FAILED, () -> this.store.fail(attempt.lease, error));
		}
		else {
			Duration backoff = this.retryPolicy.backoff(attempts);
			logger.debug("{} failed; retrying in {}: {}", attempt, backoff, failure.toString());
			write(attempt, JobOutcome.RETRIED, () -> this.store.reschedule(attempt.lease, error, backoff));
		}
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

	private void write(Attempt attempt, JobOutcome outcome, FencedWrite write) {
		try {
			if (write.held()) {
				this.listener.finished(attempt.job, outcome, attempt.runningFor());
			}
			else {
				leaseLost(attempt, "recording " + outcome.tag());
			}
		}
		catch (RuntimeException ex) {
			logger.error("Could not record {} as {}; it runs again after its lease expires", attempt, outcome.tag(),
					ex);
		}
	}

	/** Class, message and a short stack: enough to act on, small enough to store. */
	static String describe(Throwable failure) {
		StringBuilder text = new StringBuilder(failure.toString());
		StackTraceElement[] frames = failure.getStackTrace();
		for (int i = 0; i < Math.min(frames.length, 8); i++) {
			text.append("\n\tat ").append(frames[i]);
		}
		Throwable cause = failure.getCause();
		if (cause != null && cause != failure) {
			text.append("\nCaused by: ").append(cause);
		}
		return (text.length() <= 4000) ? text.toString() : text.substring(0, 4000);
	}

	@FunctionalInterface
	private interface FencedWrite {

		boolean held();

	}

}
