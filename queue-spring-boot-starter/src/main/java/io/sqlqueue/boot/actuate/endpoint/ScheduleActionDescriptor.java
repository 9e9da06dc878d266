package io.sqlqueue.boot.actuate.endpoint;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * What an action on a schedule did.
 * @param done whether it changed the schedule (or, for a trigger, enqueued its job)
 * @param jobId the job a trigger enqueued
 * @param schedule the schedule afterwards, or {@code null} when there is none
 */
public record ScheduleActionDescriptor(String name, String action, boolean done, @Nullable Long jobId,
		@Nullable ScheduleDescriptor schedule, String message) implements OperationResponseBody {
}
