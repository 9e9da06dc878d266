package io.sqlqueue.boot.actuate.endpoint;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * What a {@code retry-failed} did.
 * @param retried how many failed jobs were queued again
 * @param ids their ids
 */
public record RetriedDescriptor(String action, @Nullable String queue, @Nullable String handler, int retried,
		List<Long> ids) implements OperationResponseBody {
}
