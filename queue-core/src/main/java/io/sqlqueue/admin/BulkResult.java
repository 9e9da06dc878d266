package io.sqlqueue.admin;

import org.jspecify.annotations.Nullable;

/**
 * What a bulk action ({@link QueueAdmin#bulk}) did.
 *
 * @param action what it did to each job
 * @param done whether it changed any job
 * @param refusal why it changed nothing, or {@code null} when it changed some
 * @param matched the jobs its filter matched when it walked them (those enqueued after it
 * began are left alone)
 * @param changed the jobs it changed: retried, cancelled (or, running, asked to stop), deleted
 * @param skipped the jobs it matched but passed over: in a state the action does not apply to,
 * or whose state changed between the match and the change (a worker claimed or finished it)
 * @param chunks how many chunks (short transactions of at most {@link QueueAdmin#BULK_CHUNK}
 * jobs) it took
 * @param message what happened, in words
 */
public record BulkResult(BulkAction action, boolean done, @Nullable Refusal refusal, long matched, long changed,
		long skipped, int chunks, String message) {
}
