package io.sqlqueue.internal.store;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What one batch of the pruner deleted: how many jobs, and the finished_at of the last job it
 * read, from which the next batch of the same pass reads on ({@code null} when it read none
 * and started from the oldest).
 *
 * @param count the jobs deleted
 * @param lastFinishedAt the finished_at of the last job read
 */
public record PrunedJobs(int count, @Nullable Instant lastFinishedAt) {
}
