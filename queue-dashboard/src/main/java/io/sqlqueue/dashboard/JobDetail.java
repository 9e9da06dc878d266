package io.sqlqueue.dashboard;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonRawValue;
import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;
import io.sqlqueue.JobStep;

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
 * @param steps what its runs recorded (docs/durable-steps.md): steps, sleeps, waits for signals, oldest first
 * @param signals the signals sent to it, oldest first
 * @param parked for a job parked by a sleep or a wait for a signal, what it waits for and until
 * when, in words ({@link JobDetails#parked}); {@code null} otherwise
 */
public record JobDetail(long id, String queue, String handler, JobStatus status, int attempts, int maxAttempts,
		int priority, @Nullable String uniqueKey, @Nullable String groupKey, Instant runAt, Instant createdAt,
		Instant updatedAt, @Nullable Instant startedAt, @Nullable Instant finishedAt, @Nullable Instant scheduledFor,
		@Nullable String leaseOwner, @Nullable Instant leaseExpiresAt, @Nullable String lastError,
		@JsonRawValue @Nullable String result, @JsonRawValue @Nullable String payload, boolean payloadShown,
		List<TimelineEvent> timeline, List<String> actions, @Nullable WorkflowView workflow,
		@Nullable String handlerNotice, List<Step> steps, List<Signal> signals, @Nullable String parked) {

	/**
	 * A moment in a job's life.
	 * @param at when, on the database's clock
	 * @param event what: {@code enqueued}, {@code unrecorded}, {@code requeued}, {@code started}, {@code parked},
	 * {@code ended}, {@code due}, {@code finished}
	 * @param text what happened, in words
	 * @param owner the worker of an attempt
	 * @param error the error an attempt ended with
	 */
	public record TimelineEvent(@Nullable Instant at, String event, String text, @Nullable String owner,
			@Nullable String error) {
	}

	/**
	 * One record of the job's durable progress ({@link JobStep}); a step's result the JSON it
	 * is, as the job's own.
	 * @param wakeAt when a sleep ends or a wait for a signal times out; {@code null} for a step
	 */
	public record Step(JobStep.Kind kind, String name, @JsonRawValue @Nullable String result,
			@Nullable Instant wakeAt, boolean timedOut, Instant recordedAt) {

		static Step of(JobStep step) {
			return new Step(step.kind(), step.name(), step.result(), step.wakeAt(), step.timedOut(), step.recordedAt());
		}

	}

	/**
	 * A signal sent to the job ({@link io.sqlqueue.JobSignal}).
	 * @param payload the JSON it is, only where payloads are shown: a caller's data, like the job's own
	 */
	public record Signal(String name, @JsonRawValue @Nullable String payload, Instant sentAt) {
	}

}
