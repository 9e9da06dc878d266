package io.sqlqueue;

import java.time.Duration;

/**
 * {@link JobQueue#await(long, Duration)} waited its whole timeout and the job had not
 * finished. The job is unchanged: await it again, or cancel it.
 */
public class AwaitTimeoutException extends RuntimeException {

	private final long jobId;

	public AwaitTimeoutException(long jobId, Duration timeout) {
		super("Job " + jobId + " did not finish within " + timeout);
		this.jobId = jobId;
	}

	public long jobId() {
		return this.jobId;
	}

}
