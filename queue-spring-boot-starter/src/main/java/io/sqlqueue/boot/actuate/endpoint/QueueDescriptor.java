package io.sqlqueue.boot.actuate.endpoint;

import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;

/**
 * One queue.
 * @param jobs jobs per state
 * @param oldestDueAge how long the oldest due job has waited (ISO-8601)
 * @param busyWorkers this instance's workers running a handler, or {@code null} when it does not serve the queue
 * @param totalWorkers this instance's workers for the queue, or {@code null} when it does not serve the queue
 * @param limits the queue's limits, or {@code null} when it has none
 * @param throttled due jobs that a limit holds back now, by the limit ({@code queue-concurrency},
 * {@code queue-rate}, {@code key-concurrency}, {@code key-rate})
 * @param paused the queue's pause, or {@code null} when it is not paused
 * @param estimated the states whose count in {@code jobs} is an estimate (on a large
 * PostgreSQL table: docs/operations.md#counts-on-a-large-table), empty when all are counted
 */
public record QueueDescriptor(Map<JobStatus, Long> jobs, String oldestDueAge, @Nullable Integer busyWorkers,
		@Nullable Integer totalWorkers, @Nullable LimitsDescriptor limits, Map<String, Long> throttled,
		@Nullable PausedDescriptor paused, Set<JobStatus> estimated) {
}
