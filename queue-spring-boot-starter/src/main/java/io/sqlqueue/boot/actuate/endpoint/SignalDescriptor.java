package io.sqlqueue.boot.actuate.endpoint;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonRawValue;
import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobSignal;

/**
 * A signal sent to a job ({@link JobSignal}).
 * @param payload its payload as the JSON it is, only where a job's payload is shown: a
 * caller's data, like the job's own
 */
public record SignalDescriptor(String name, @JsonRawValue @Nullable String payload, Instant sentAt) {

	static SignalDescriptor of(JobSignal signal, boolean showPayload) {
		return new SignalDescriptor(signal.name(), showPayload ? signal.payload() : null, signal.sentAt());
	}

}
