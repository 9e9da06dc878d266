package io.sqlqueue.internal.store;

import java.time.Duration;

import io.sqlqueue.JobStatus;

/**
 * How many jobs one queue has in one state; for {@code QUEUED}, also how long the oldest
 * due one has waited (on the database's clock).
 *
 * @param estimated whether {@code jobs} is an estimate (see {@link QueueCounter}) rather
 * than a count
 */
public record QueueCount(String queue, JobStatus status, long jobs, Duration oldestDueAge, boolean estimated) {

	/** A count, not an estimate. */
	public QueueCount(String queue, JobStatus status, long jobs, Duration oldestDueAge) {
		this(queue, status, jobs, oldestDueAge, false);
	}

}
