package io.sqlqueue.internal.store;

import java.util.List;

/**
 * Claim up to {@code limit} due jobs of one queue whose handler is one of {@code handlers},
 * for {@code owner}, with a lease of {@code leaseMillis}.
 */
public record ClaimRequest(String owner, String queue, List<String> handlers, int limit, long leaseMillis) {

	public ClaimRequest {
		if (handlers.isEmpty()) {
			throw new IllegalArgumentException("A claim needs at least one handler");
		}
		if (limit < 1) {
			throw new IllegalArgumentException("A claim needs a limit of at least 1");
		}
		handlers = List.copyOf(handlers);
	}

}
