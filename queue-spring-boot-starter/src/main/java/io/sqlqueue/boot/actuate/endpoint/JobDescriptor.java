package io.sqlqueue.boot.actuate.endpoint;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonRawValue;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

import io.sqlqueue.JobRecord;
import io.sqlqueue.JobSignal;
import io.sqlqueue.JobStatus;
import io.sqlqueue.JobStep;
import io.sqlqueue.admin.JobAttempt;
import io.sqlqueue.admin.QueueAdmin;

/**
 * A job as stored; payload and result as the JSON they are, the payload only when
 * allowed.
 * @param crashes attempts that ended because their worker was lost (lease expired)
 * @param deadline when the job, not started by then, is cancelled instead
 * @param cancelRequestedAt when a cancel of the running job was asked for
 * @param handlerNotice for a job yet to run whose handler this instance neither has nor
 * lists as remote: that it has none, the closest name, and that the job never runs if no
 * running instance has it; {@code null} otherwise
 * @param history its ended attempts, oldest first, as the database keeps them
 * ({@link QueueAdmin#attempts})
 * @param tags the job's tags ({@link io.sqlqueue.Job#tags}), empty for none
 * @param meta the job's metadata ({@link io.sqlqueue.Job#meta}), empty for none
 * @param steps what its runs recorded (steps, sleeps, waits for signals), oldest first;
 * a parked job ({@code QUEUED}, due at a sleep's or a wait's {@code wakeAt}) reads why here
 * @param signals the signals sent to it, oldest first; their payloads only when allowed
 */
public record JobDescriptor(long id, String queue, String handler, JobStatus status, int attempts,
		int maxAttempts, int crashes, int priority, @JsonRawValue @Nullable String payload,
		@JsonRawValue @Nullable String result, @Nullable String lastError, @Nullable String uniqueKey,
		@Nullable String groupKey, @Nullable String leaseOwner, @Nullable Instant leaseExpiresAt, Instant runAt,
		@Nullable Instant deadline, @Nullable Instant cancelRequestedAt, Instant createdAt, Instant updatedAt,
		@Nullable Instant startedAt, @Nullable Instant finishedAt,
		@Nullable WorkflowDescriptor workflow, @Nullable String handlerNotice,
		List<JobAttempt> history, List<String> tags, Map<String, String> meta, List<StepDescriptor> steps,
		List<SignalDescriptor> signals) implements OperationResponseBody {

	static JobDescriptor of(JobRecord job, boolean showPayload, @Nullable WorkflowDescriptor workflow,
			@Nullable String handlerNotice, List<JobAttempt> history, List<JobStep> steps,
			List<JobSignal> signals) {
		return new JobDescriptor(job.id(), job.queue(), job.handler(), job.status(), job.attempts(),
				job.maxAttempts(), job.crashes(), job.priority(), showPayload ? job.payload() : null,
				job.result(), job.lastError(), job.uniqueKey(), job.groupKey(), job.leaseOwner(),
				job.leaseExpiresAt(), job.runAt(), job.deadline(), job.cancelRequestedAt(), job.createdAt(),
				job.updatedAt(), job.startedAt(), job.finishedAt(), workflow, handlerNotice, history, job.tags(),
				job.meta(), steps.stream().map(StepDescriptor::of).toList(),
				signals.stream().map((signal) -> SignalDescriptor.of(signal, showPayload)).toList());
	}

}
