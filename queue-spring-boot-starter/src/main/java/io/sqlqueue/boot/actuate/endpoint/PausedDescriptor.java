package io.sqlqueue.boot.actuate.endpoint;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A paused queue: no instance claims its jobs.
 * @param pausedAt when it was paused (database clock)
 * @param pausedBy who paused it, or {@code null} when not named
 */
public record PausedDescriptor(Instant pausedAt, @Nullable String pausedBy) {
}
