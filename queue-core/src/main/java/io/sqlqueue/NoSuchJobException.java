package io.sqlqueue;

/**
 * No job has this id: it was never enqueued (or its enqueue rolled back), or it finished
 * and was deleted after its retention.
 */
public class NoSuchJobException extends IllegalArgumentException {

	public NoSuchJobException(long jobId) {
		super("No job " + jobId + " (never enqueued, rolled back, or deleted after its retention)");
	}

}
