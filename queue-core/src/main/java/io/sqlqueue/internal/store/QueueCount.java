package io.sqlqueue.internal.store;

import java.time.Duration;

import io.sqlqueue.JobStatus;

/**
 * How many jobs one queue has in one state; for {@code QUEUED}, also how long the oldest
 * due one has waited (on the database's clock).
 */
public record QueueCount(String queue, JobStatus status, long jobs, Duration oldestDueAge) {
}
