package io.sqlqueue.admin;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;

/**
 * A job as a line of a list: no payload or result, and only the start of its last error.
 *
 * @param errorHead the first characters of the last error, or {@code null} when there is none
 * @param worker the worker id of the instance that holds a {@code RUNNING} job (its lease
 * owner, the id of its row of {@code queue_instance}); {@code null} for a job in another state
 * @param parked whether it is parked on a durable sleep or a wait for a signal
 * ({@link JobFilter#parked}): {@code QUEUED}, due when that ends
 * @param tags its tags ({@link io.sqlqueue.Job#tags}), in name order
 */
public record JobSummary(long id, String queue, String handler, JobStatus status, int priority, int attempts,
		int maxAttempts, Instant runAt, Instant createdAt, @Nullable Instant startedAt, @Nullable Instant finishedAt,
		@Nullable String uniqueKey, @Nullable String groupKey, @Nullable String errorHead, @Nullable String worker,
		boolean parked, List<String> tags) {

	public JobSummary {
		tags = List.copyOf(tags);
	}

	/** This line with these tags. */
	public JobSummary withTags(List<String> tags) {
		return new JobSummary(this.id, this.queue, this.handler, this.status, this.priority, this.attempts,
				this.maxAttempts, this.runAt, this.createdAt, this.startedAt, this.finishedAt, this.uniqueKey,
				this.groupKey, this.errorHead, this.worker, this.parked, tags);
	}
}
