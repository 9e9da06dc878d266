package io.sqlqueue.admin;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A queue paused across the cluster: no instance claims its jobs until it is resumed.
 *
 * @param queue the queue's name
 * @param pausedAt when it was paused, on the database's clock
 * @param pausedBy who paused it, as the caller of {@link QueueAdmin#pauseQueue(String, String)}
 * named them, or {@code null}
 */
public record PausedQueue(String queue, Instant pausedAt, @Nullable String pausedBy) {
}
