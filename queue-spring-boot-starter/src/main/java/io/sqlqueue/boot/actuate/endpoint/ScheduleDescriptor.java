package io.sqlqueue.boot.actuate.endpoint;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleRecord;
import io.sqlqueue.schedule.ScheduleSource;

/**
 * One schedule as stored.
 * @param queue the queue of its jobs, or {@code null} when not stored (an instance with the handler fills it in)
 * @param priority the priority of its jobs
 * @param maxAttempts the attempts of its jobs, or {@code null} when not stored (as {@code queue})
 * @param cron its cron expression, or {@code null} for a fixed interval
 * @param zone the time zone of its cron expression
 * @param every its fixed interval (ISO-8601), or {@code null} for cron
 * @param nextRunAt when it fires next (database clock)
 * @param orphaned whether the code no longer declares it (it does not fire)
 * @param source where it was declared
 */
public record ScheduleDescriptor(String handler, @Nullable String queue, int priority,
		@Nullable Integer maxAttempts, @Nullable String cron,
		@Nullable String zone, @Nullable String every, String misfire, String overlap, Instant nextRunAt,
		@Nullable Instant lastFiredAt, @Nullable Long lastJobId, @Nullable JobStatus lastJobStatus,
		boolean paused, boolean orphaned, ScheduleSource source) {

	static ScheduleDescriptor of(ScheduleRecord schedule) {
		Recurrence recurrence = schedule.definition().recurrence();
		Duration every = recurrence.every();
		return new ScheduleDescriptor(schedule.definition().handler(), schedule.definition().queue(),
				schedule.definition().priority(), schedule.definition().maxAttempts(), recurrence.cron(),
				recurrence.zone(), (every != null) ? every.toString() : null,
				schedule.definition().misfire().name(), schedule.definition().overlap().name(),
				schedule.nextRunAt(), schedule.lastFiredAt(), schedule.lastJobId(), schedule.lastJobStatus(),
				schedule.paused(), schedule.orphaned(), schedule.source());
	}

}
