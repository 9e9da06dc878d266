package io.sqlqueue.internal.store;

import io.sqlqueue.JobStatus;

/**
 * How many jobs of one queue reached one finished state within one minute.
 *
 * @param minutesAgo which minute, counted back from the database's clock: 0 is the last 60 seconds
 */
public record FinishedCount(String queue, JobStatus status, int minutesAgo, long jobs) {
}
