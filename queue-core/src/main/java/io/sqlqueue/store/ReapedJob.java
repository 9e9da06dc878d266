package io.sqlqueue.store;

/**
 * A job whose lease expired and that the reaper re-queued, or failed when its attempts
 * were used up.
 */
public record ReapedJob(long id, String queue, String handler, String previousOwner, boolean failed) {
}
