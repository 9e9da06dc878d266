package io.sqlqueue.boot.actuate.endpoint;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * What an action on a limit did.
 * @param keys the key pattern, or {@code null} for the queue's own limit
 * @param done whether it changed a limit
 * @param limits the queue's limits afterwards, or {@code null} when it has none
 */
public record LimitActionDescriptor(String queue, @Nullable String keys, String action, boolean done,
		@Nullable LimitsDescriptor limits, String message) implements OperationResponseBody {
}
