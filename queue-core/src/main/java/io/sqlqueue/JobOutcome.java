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

	/** An operator cancelled the job before it ran. */
	CANCELLED;

	/** The name as a metric tag: lower case. */
	public String tag() {
		return name().toLowerCase(Locale.ROOT);
	}

}
