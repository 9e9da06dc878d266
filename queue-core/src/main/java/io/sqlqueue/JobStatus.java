package io.sqlqueue;

/**
 * The states of a job. {@code QUEUED → RUNNING → SUCCEEDED | QUEUED (retry) | FAILED};
 * {@code QUEUED → CANCELLED}; {@code FAILED → QUEUED} (operator retry).
 */
public enum JobStatus {

	QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED;

	/** Whether a job in this state will not run again unless an operator retries it. */
	public boolean isFinished() {
		return this == SUCCEEDED || this == FAILED || this == CANCELLED;
	}

}
