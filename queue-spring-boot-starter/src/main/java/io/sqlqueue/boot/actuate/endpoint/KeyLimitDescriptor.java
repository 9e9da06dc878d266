package io.sqlqueue.boot.actuate.endpoint;

import org.jspecify.annotations.Nullable;

/**
 * The limit of each concurrency key a pattern matches.
 * @param concurrency the most jobs of one such key running at once, or {@code null}
 * @param rateLimit the most starts of one such key per period, or {@code null}
 */
public record KeyLimitDescriptor(@Nullable Integer concurrency, @Nullable String rateLimit) {
}
