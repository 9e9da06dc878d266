package io.sqlqueue.schedule;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;

/**
 * A schedule as stored: its definition, where it was declared, whether it is paused or
 * orphaned (declared by the code once, no longer), and when it fires next and fired last.
 *
 * @param lastTickAt the latest tick handled (fired, or skipped by a policy)
 * @param lastFiredAt when its latest job was enqueued (database clock)
 * @param lastJobStatus that job's state now, or {@code null} when there is none (or it was pruned)
 */
public record ScheduleRecord(ScheduleDefinition definition, ScheduleSource source, boolean paused, boolean orphaned,
		Instant nextRunAt, @Nullable Instant lastTickAt, @Nullable Instant lastFiredAt, @Nullable Long lastJobId,
		@Nullable JobStatus lastJobStatus) {

	public String name() {
		return this.definition.name();
	}

	/**
	 * Whether, at {@code now} (database clock), the schedule is more than its own period
	 * behind: it should have fired and has not, although nothing holds it.
	 */
	public boolean isBehind(Instant now) {
		if (this.paused || this.orphaned || !this.nextRunAt.isBefore(now)) {
			return false;
		}
		Duration period = this.definition.recurrence().period(this.nextRunAt);
		return Duration.between(this.nextRunAt, now).compareTo(period) > 0;
	}

}
