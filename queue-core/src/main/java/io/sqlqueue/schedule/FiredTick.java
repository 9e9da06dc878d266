package io.sqlqueue.schedule;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One tick a firing pass handled: the job it enqueued, or none when a policy skipped it
 * ({@code jobId} null); {@code lag} is how late it fired, by the database's clock.
 */
public record FiredTick(String schedule, Instant tick, @Nullable Long jobId, Duration lag) {

	public boolean skipped() {
		return this.jobId == null;
	}

}
