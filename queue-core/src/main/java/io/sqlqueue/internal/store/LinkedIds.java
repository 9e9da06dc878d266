package io.sqlqueue.internal.store;

import java.util.List;

import org.jspecify.annotations.Nullable;

/** The ids {@link LinkedJobs} were written with: the jobs' in order, and the batch's. */
public record LinkedIds(List<Long> jobIds, @Nullable Long batchId) {
}
