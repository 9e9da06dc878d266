package io.sqlqueue.boot.diagnostics;

/**
 * The application has {@link io.sqlqueue.JobHandler @JobHandler} methods, but the queue's
 * auto-configuration could not start, so they would never run. Thrown at start-up and
 * explained by {@link QueueNotStartedFailureAnalyzer}.
 */
public class QueueNotStartedException extends IllegalStateException {

	private final String action;

	QueueNotStartedException(String description, String action) {
		super(description);
		this.action = action;
	}

	/** What to do about it. */
	public String getAction() {
		return this.action;
	}

}
