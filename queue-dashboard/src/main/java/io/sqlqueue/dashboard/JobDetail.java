package io.sqlqueue.dashboard;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonRawValue;
import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;

/**
 * One job as the detail page shows it: the row, its timeline, and what an operator may do
 * with it now. Payload and result are the JSON they are; the payload only where the
 * application allows it.
 *
 * @param payloadShown whether the payload is shown ({@code management.endpoint.sqlqueue.show-payload})
 * @param actions what may be done with the job in its state: {@code retry}, {@code cancel}
 * @param workflow its place in a workflow, or {@code null} for a job outside any
 * @param handlerNotice for a job yet to run whose handler this instance neither has nor lists
 * as remote: that it has none, the closest name, and that the job never runs if no running
 * instance has it ({@link io.sqlqueue.internal.handler.UnknownHandlers#notice}); {@code null} otherwise
 */
public record JobDetail(long id, String queue, String handler, JobStatus status, int attempts, int maxAttempts,
		int priority, @Nullable String uniqueKey, @Nullable String groupKey, Instant runAt, Instant createdAt,
		Instant updatedAt, @Nullable Instant startedAt, @Nullable Instant finishedAt, @Nullable Instant scheduledFor,
		@Nullable String leaseOwner, @Nullable Instant leaseExpiresAt, @Nullable String lastError,
		@JsonRawValue @Nullable String result, @JsonRawValue @Nullable String payload, boolean payloadShown,
		List<TimelineEvent> timeline, List<String> actions, @Nullable WorkflowView workflow,
		@Nullable String handlerNotice) {

	/**
	 * A moment in a job's life.
	 * @param at when, on the database's clock
	 * @param event what: {@code enqueued}, {@code unrecorded}, {@code requeued}, {@code started}, {@code ended},
	 * {@code due}, {@code finished}
	 * @param text what happened, in words
	 * @param owner the worker of an attempt
	 * @param error the error an attempt ended with
	 */
	public record TimelineEvent(@Nullable Instant at, String event, String text, @Nullable String owner,
			@Nullable String error) {
	}

}
