package io.sqlqueue.admin;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;

/**
 * A job as a line of a list: no payload or result, and only the start of its last error.
 *
 * @param errorHead the first characters of the last error, or {@code null} when there is none
 * @param worker the worker id of the instance that holds a {@code RUNNING} job (its lease
 * owner, the id of its row of {@code queue_instance}); {@code null} for a job in another state
 */
public record JobSummary(long id, String queue, String handler, JobStatus status, int priority, int attempts,
		int maxAttempts, Instant runAt, Instant createdAt, @Nullable Instant startedAt, @Nullable Instant finishedAt,
		@Nullable String uniqueKey, @Nullable String groupKey, @Nullable String errorHead, @Nullable String worker) {
}
