package io.sqlqueue;

/**
 * What a dependency that fails for good, or is cancelled, does to the job that waits for it.
 * Chosen per job with {@link io.sqlqueue.Job#onDependencyFailure}.
 */
public enum DependencyFailure {

	/**
	 * The waiting job is {@code CANCELLED} without running, and so, in turn, are the jobs that
	 * wait for it with this policy. The default: "charge, then ship" never ships unpaid.
	 */
	CANCEL,

	/** The dependency counts as done: the waiting job runs once its other dependencies are done too. */
	RUN

}
