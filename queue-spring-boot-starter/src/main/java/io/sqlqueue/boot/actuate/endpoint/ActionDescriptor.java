package io.sqlqueue.boot.actuate.endpoint;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

import io.sqlqueue.JobStatus;

/**
 * What an action on one job did.
 * @param done whether it changed the job
 * @param status the job's state afterwards, or {@code null} when there is no such job
 */
public record ActionDescriptor(long id, String action, boolean done, @Nullable JobStatus status,
		String message) implements OperationResponseBody {
}
