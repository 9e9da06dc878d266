package io.sqlqueue;

/**
 * The states of a job. {@code QUEUED → RUNNING → SUCCEEDED | QUEUED (retry) | FAILED};
 * {@code QUEUED → CANCELLED}; {@code FAILED → QUEUED} (operator retry);
 * {@code WAITING → QUEUED} (its dependencies ended) {@code | CANCELLED} (one failed, or a cancel).
 */
public enum JobStatus {

	/**
	 * Waits for other jobs ({@link Job#after(long...)}), or, as a batch's callback, for its
	 * batch: never claimed until they end.
	 */
	WAITING,

	QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED;

	/** Whether a job in this state will not run again unless an operator retries it. */
	public boolean isFinished() {
		return this == SUCCEEDED || this == FAILED || this == CANCELLED;
	}

}
