package io.sqlqueue.internal.store;

/** A job an operator's bulk cancel ended ({@link BulkJobWrites#cancelPlain}). */
public record CancelledJob(long id, String queue, String handler) {
}
