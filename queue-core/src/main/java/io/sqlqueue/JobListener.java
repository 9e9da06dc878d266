package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Told what the queue does on this instance, as it happens: the seam for metrics. Called
 * on the queue's own threads, so implementations must be quick and must not throw.
 */
public interface JobListener {

	/** Listens to nothing. */
	JobListener NONE = new JobListener() {
	};

	/** Jobs for this handler were enqueued and committed. */
	default void enqueued(String queue, String handler, int jobs) {
	}

	/** One claim took this many jobs of the queue (possibly none). */
	default void claimed(String queue, int jobs) {
	}

	/** An attempt started, {@code waited} after the job was due (on the database's clock). */
	default void started(JobRecord job, Duration waited) {
	}

	/** An attempt ended, after running for {@code took}. */
	default void finished(JobRecord job, JobOutcome outcome, Duration took) {
	}

	/** A job was cancelled before it ran (a cancel of a running job ends its attempt: {@link #finished}). */
	default void cancelled(String queue, String handler) {
	}

	/** A queued job's deadline passed before it started: it is {@code CANCELLED}, never started. */
	default void expired(ExpiredJob job) {
	}

	/** A fenced write or heartbeat found that the job was no longer this attempt's. */
	default void leaseLost(JobRecord job) {
	}

	/**
	 * The reaper found a job whose lease expired (a crash: its worker died or froze) and
	 * re-queued, failed or cancelled it.
	 */
	default void reaped(ReapedJob job) {
	}

	/**
	 * A schedule's tick was handled, {@code lag} after it was due (database clock):
	 * {@code fired} when its job was enqueued, else skipped by a policy.
	 */
	default void ticked(String schedule, Instant tick, Duration lag, boolean fired) {
	}

	/** Tells all of these listeners, in order; one that throws is logged and skipped. */
	static JobListener all(List<? extends JobListener> listeners) {
		return listeners.isEmpty() ? NONE : new CompositeJobListener(List.copyOf(listeners));
	}

	/** This listener, with its failures logged instead of thrown. */
	static JobListener guarded(JobListener listener) {
		return (listener == NONE || listener instanceof CompositeJobListener) ? listener : all(List.of(listener));
	}

}
