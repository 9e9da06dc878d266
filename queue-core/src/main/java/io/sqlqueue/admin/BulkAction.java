package io.sqlqueue.admin;

import io.sqlqueue.JobStatus;

/**
 * What a bulk action ({@link QueueAdmin#bulk}) does to each job its filter matches; a job in
 * another state is passed over and counted as skipped.
 */
public enum BulkAction {

	/** Queues a {@code FAILED} job again with a fresh set of attempts, as {@link QueueAdmin#retry} does. */
	RETRY("retry"),

	/**
	 * Cancels a {@code WAITING} or {@code QUEUED} job, and asks the instance running a
	 * {@code RUNNING} one to stop it, as {@link QueueAdmin#cancel} does.
	 */
	CANCEL("cancel"),

	/**
	 * Deletes a finished job ({@code SUCCEEDED}, {@code FAILED} or {@code CANCELLED}), as the
	 * retention's pruning does; an unfinished one is never deleted (cancel it first).
	 */
	DELETE("delete");

	private final String verb;

	BulkAction(String verb) {
		this.verb = verb;
	}

	/** The action in a sentence: {@code retry}, {@code cancel}, {@code delete}. */
	public String verb() {
		return this.verb;
	}

	/** Whether a job in this state is one the action can change. */
	public boolean applies(JobStatus status) {
		return switch (this) {
			case RETRY -> status == JobStatus.FAILED;
			case CANCEL -> !status.isFinished();
			case DELETE -> status.isFinished();
		};
	}

}
