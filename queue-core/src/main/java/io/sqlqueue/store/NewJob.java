package io.sqlqueue.store;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A validated job ready to insert: names checked, payload encoded. Due at {@code runAt}
 * when given, else {@code delayMillis} after now on the database's clock.
 */
public record NewJob(String queue, String handler, String payload, int priority, @Nullable Instant runAt,
		long delayMillis, int maxAttempts, @Nullable String uniqueKey, @Nullable String groupKey) {
}
