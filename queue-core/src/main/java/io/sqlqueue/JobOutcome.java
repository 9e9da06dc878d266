package io.sqlqueue;

import java.util.Locale;

/**
 * How an attempt, or a job, ended.
 */
public enum JobOutcome {

	/** The handler returned: the job is {@code SUCCEEDED}. */
	SUCCEEDED,

	/** The attempt failed and the job waits for another. */
	RETRIED,

	/** The job failed for good (dead letter). */
	FAILED,

	/** The job was cancelled: before it ran, or while it ran, on request. */
	CANCELLED,

	/** The job's deadline passed before it started: it is {@code CANCELLED} and never ran. */
	EXPIRED,

	/**
	 * The handler parked its job (docs/durable-steps.md): a sleep, a wait for a signal or a
	 * snooze. The job is {@code QUEUED} again, due when the park ends, with no attempt spent.
	 */
	PARKED,

	/**
	 * The instance stopped while the attempt ran, past {@code sqlqueue.manager.shutdown-timeout}:
	 * its handler was interrupted and ended, and the job is {@code QUEUED} again, due at once,
	 * with no attempt spent and no crash counted (docs/how-it-works.md, "Stop").
	 */
	STOPPED;

	/** The name as a metric tag: lower case. */
	public String tag() {
		return name().toLowerCase(Locale.ROOT);
	}

}
