package io.sqlqueue;

/**
 * The attempt's lease expired and the job was handed to another worker (or finished by an
 * operator): nothing this attempt writes to the job will count.
 */
public class LeaseLostException extends RuntimeException {

	public LeaseLostException(long jobId) {
		super("Lost the lease of job " + jobId);
	}

}
