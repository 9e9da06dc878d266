package io.sqlqueue.internal.store;

/**
 * The claim a worker holds on a job: every write after the claim names both, so a
 * worker whose job was handed to another changes nothing (DESIGN.md, promise 2).
 */
public record Lease(long jobId, long token) {
}
