package io.sqlqueue;

/**
 * A run of a durable job met records that its handler's code no longer reaches in the order
 * they were written (docs/durable-steps.md#changing-a-durable-handler): a step, sleep or wait
 * renamed, removed or moved, or a new call made before a recorded one. Thrown by the durable
 * call that found it (before a new call's body runs) or at the handler's return, its message
 * naming the record and the call; every later durable call of the run throws it again, so a
 * handler that catches it cannot go on. It fails the job at once, without its remaining
 * attempts (it is a {@link NonRetryableException}): no retry under the same code can replay
 * the job. An operator then retries the job once its handler replays it (for instance with a
 * {@link JobContext#patched} branch), retries it from a chosen record
 * ({@code QueueAdmin.retryFrom}), or leaves it failed.
 */
public class ReplayMismatchException extends NonRetryableException {

	private static final long serialVersionUID = 1L;

	public ReplayMismatchException(String message) {
		super(message);
	}

}
