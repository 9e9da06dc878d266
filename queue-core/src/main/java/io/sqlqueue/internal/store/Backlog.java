package io.sqlqueue.internal.store;

import java.time.Duration;

/**
 * Due jobs waiting in one queue for one handler, and how long the oldest has waited
 * (measured on the database's clock).
 */
public record Backlog(String queue, String handler, long dueJobs, Duration oldestAge) {
}
