package io.sqlqueue.boot.actuate.endpoint;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

import io.sqlqueue.admin.AdminResult;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.schedule.Schedules;

/**
 * The recurring jobs' schedules, for {@link SqlQueueEndpoint}: pausing, resuming or
 * triggering one ({@code POST /sqlqueue/schedules/{name}}). {@code GET /sqlqueue} lists them
 * ({@link QueueOperations}).
 */
final class ScheduleOperations {

	private final @Nullable Schedules schedules;

	ScheduleOperations(@Nullable Schedules schedules) {
		this.schedules = schedules;
	}

	/**
	 * Pauses ({@code action=pause}), resumes ({@code action=resume}) or fires now
	 * ({@code action=trigger}) the schedule, as {@code admin}; says what happened and shows
	 * the schedule afterwards.
	 */
	ScheduleActionDescriptor act(QueueAdmin admin, String name, String action) {
		if (!action.equals("pause") && !action.equals("resume") && !action.equals("trigger")) {
			throw new InvalidEndpointRequestException(
					"Unknown action '" + action + "'; use 'pause', 'resume' or 'trigger'", "Unknown action");
		}
		AdminResult result = switch (action) {
			case "pause" -> admin.pauseSchedule(name);
			case "resume" -> admin.resumeSchedule(name);
			default -> admin.triggerSchedule(name);
		};
		Long jobId = (result.done() && action.equals("trigger")) ? result.ids().get(0) : null;
		ScheduleDescriptor after = (this.schedules != null)
				? this.schedules.find(name).map(ScheduleDescriptor::of).orElse(null) : null;
		return new ScheduleActionDescriptor(name, action, result.done(), jobId, after, result.message());
	}

}
