package io.sqlqueue;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What enqueueing a {@link Batch} wrote.
 * @param batchId the batch's id ({@link io.sqlqueue.JobQueue#batch(long)})
 * @param jobIds the ids of its jobs, in order
 * @param callbackId the callback job's id, or {@code null} without a callback
 */
public record BatchIds(long batchId, List<Long> jobIds, @Nullable Long callbackId) {
}
