package io.sqlqueue.boot.actuate.endpoint;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonRawValue;
import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStep;

/**
 * One record of a job's durable progress ({@link JobStep}); its result as the JSON it is,
 * as the job's own.
 * @param result a step's result ({@code null} for a sleep or a wait)
 * @param wakeAt when a sleep ends or a wait for a signal times out; {@code null} for a step
 * @param timedOut whether a wait for a signal timed out
 */
public record StepDescriptor(JobStep.Kind kind, String name, @JsonRawValue @Nullable String result,
		@Nullable Instant wakeAt, boolean timedOut, Instant recordedAt) {

	static StepDescriptor of(JobStep step) {
		return new StepDescriptor(step.kind(), step.name(), step.result(), step.wakeAt(), step.timedOut(),
				step.recordedAt());
	}

}
