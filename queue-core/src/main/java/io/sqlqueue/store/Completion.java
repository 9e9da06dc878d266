package io.sqlqueue.store;

import org.jspecify.annotations.Nullable;

/**
 * A successful attempt to record: the lease it ran under and the handler's result as JSON.
 */
public record Completion(Lease lease, @Nullable String result) {
}
