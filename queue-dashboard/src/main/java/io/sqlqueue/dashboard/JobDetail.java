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
 * @param actions what may be done with the job in its state: {@code retry}, {@code cancel}, and
 * {@code retry-from} (one of its records, the step rows' own action) for a failed job with records
 * @param workflow its place in a workflow, or {@code null} for a job outside any
 * @param handlerNotice for a job yet to run whose handler this instance neither has nor lists
 * as remote: that it has none, the closest name, and that the job never runs if no running
 * instance has it ({@link io.sqlqueue.internal.handler.UnknownHandlers#notice}); {@code null} otherwise
 * @param steps what its runs recorded (docs/durable-steps.md): steps, sleeps, waits for signals, oldest first
 * @param signals the signals sent to it, oldest first
 * @param parked for a job parked by a sleep or a wait for a signal, what it waits for and until
 * when ({@link JobDetails#parked}); {@code null} otherwise
 * @param currentAttempt the attempt the timeline names last: the row's count of attempts, but
 * for a job whose latest run parked it, that run's (a park spends no attempt: the job resumes
 * as the same attempt, so the row counts one fewer)
 * @param worker the worker that holds the job now (its lease): only for a {@code RUNNING} job,
 * as the row keeps the last one after a run parks or ends
 */
public record JobDetail(long id, String queue, String handler, JobStatus status, int attempts, int maxAttempts,
		int priority, @Nullable String uniqueKey, @Nullable String groupKey, Instant runAt, Instant createdAt,
		Instant updatedAt, @Nullable Instant startedAt, @Nullable Instant finishedAt, @Nullable Instant scheduledFor,
		@Nullable String leaseOwner, @Nullable Instant leaseExpiresAt, @Nullable String lastError,
		@JsonRawValue @Nullable String result, @JsonRawValue @Nullable String payload, boolean payloadShown,
		List<TimelineEvent> timeline, List<String> actions, @Nullable WorkflowView workflow,
		@Nullable String handlerNotice, List<Step> steps, List<Signal> signals, @Nullable Parked parked,
		int currentAttempt, @Nullable String worker) {

	/**
	 * What a parked job waits for.
	 * @param kind {@code SLEEP} or {@code SIGNAL} (a wait for a signal)
	 * @param name the signal's name (a sleep's is its number in the run)
	 * @param wakeAt when the sleep ends, or the wait times out unless the signal comes first
	 */
	public record Parked(JobStep.Kind kind, String name, Instant wakeAt) {
	}

	/**
	 * A moment in a job's life.
	 * @param at when, on the database's clock
	 * @param event what: {@code enqueued}, {@code unrecorded}, {@code requeued}, {@code started}, {@code parked},
	 * {@code ended}, {@code due}, {@code finished}
	 * @param text what happened, in words; a moment it names is {@code about}, written by the page
	 * in its own time format (never in the text)
	 * @param owner the worker of an attempt
	 * @param error the error an attempt ended with
	 * @param about the moment the text ends with ("… until", "… for its tick at"), or {@code null}
	 */
	public record TimelineEvent(@Nullable Instant at, String event, String text, @Nullable String owner,
			@Nullable String error, @Nullable Instant about) {

		TimelineEvent(@Nullable Instant at, String event, String text, @Nullable String owner,
				@Nullable String error) {
			this(at, event, text, owner, error, null);
		}

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
