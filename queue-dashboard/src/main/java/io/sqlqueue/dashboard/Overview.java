package io.sqlqueue.dashboard;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;

/**
 * What the overview shows: every queue with its jobs per state, how long its oldest due
 * job has waited, this instance's workers, the jobs finished per minute, and its limits with
 * the jobs they hold back; and the recurring jobs' schedules.
 *
 * @param countedAt when the counts were read
 * @param instance this instance's worker id, whose workers the queues show
 * @param minutes how many minutes the per-minute counts cover
 * @param instances the instances that run jobs, as their rows last said (the cluster)
 * @param reads where the counts were read (the read replica, or the queue's own database), and
 * how far behind that was when they were counted
 */
public record Overview(Instant countedAt, @Nullable String instance, int minutes, List<QueueLine> queues,
		List<ScheduleLine> schedules, List<InstanceLine> instances, ReadsView reads) {

	/**
	 * One queue.
	 * @param jobs jobs per state, every state present
	 * @param oldestDueAgeMillis how long the oldest due job has waited (0 when none waits)
	 * @param busyWorkers this instance's workers running a handler, or {@code null} when it does not serve the queue
	 * @param totalWorkers this instance's workers for the queue, or {@code null} when it does not serve the queue
	 * @param succeededPerMinute jobs that succeeded in each minute, oldest minute first
	 * @param failedPerMinute jobs that failed for good in each minute, oldest minute first
	 * @param limits the queue's limits (docs/flow-control.md), each as it reads: {@code queue:
	 * concurrency 5, rate 100/1m} or {@code customer:*: concurrency 2}; empty for a queue without
	 * @param throttled due jobs its limits hold back now, by the kind of limit that does
	 * ({@code queue-concurrency}, {@code queue-rate}, {@code key-concurrency}, {@code key-rate})
	 * @param queued its {@code QUEUED} jobs by why they wait (read with the counts, in a
	 * statement of its own, so the parts may differ a little from the {@code QUEUED} count)
	 * @param paused its pause, or {@code null} when it is not paused
	 * @param estimated the states whose count in {@code jobs} is an estimate (a large PostgreSQL
	 * table), shown with a "≈"
	 */
	public record QueueLine(String name, Map<JobStatus, Long> jobs, long oldestDueAgeMillis,
			@Nullable Integer busyWorkers, @Nullable Integer totalWorkers, List<Long> succeededPerMinute,
			List<Long> failedPerMinute, List<String> limits, Map<String, Long> throttled, Queued queued,
			@Nullable Paused paused, Set<JobStatus> estimated) {
	}

	/**
	 * A queue's pause: no instance claims its jobs.
	 * @param pausedAt when, on the database's clock
	 * @param pausedBy who, or {@code null} when not named
	 */
	public record Paused(Instant pausedAt, @Nullable String pausedBy) {
	}

	/**
	 * One instance that runs jobs.
	 * @param sinceSeenMillis how long since it last wrote its row, on the database's clock
	 * @param gone whether it missed three beats (its row goes after the retention)
	 */
	public record InstanceLine(String id, String host, long pid, String version, List<String> queues,
			int concurrency, int busyWorkers, Instant startedAt, Instant lastSeen, long sinceSeenMillis,
			boolean gone) {
	}

	/**
	 * A queue's {@code QUEUED} jobs by why they wait, on the database's clock.
	 * @param due due now, waiting for a worker (or a limit)
	 * @param delayed not due yet and never run (enqueued with a delay or a time to run at)
	 * @param backingOff not due yet after a failed attempt (waiting out the retry backoff)
	 * @param parked not due yet, parked on a durable sleep or a wait for a signal
	 * (docs/durable-steps.md); neither delayed nor backing off
	 */
	public record Queued(long due, long delayed, long backingOff, long parked) {

		static final Queued NONE = new Queued(0, 0, 0, 0);

	}

	/**
	 * One schedule.
	 * @param when its cron expression and zone, or its fixed interval
	 * @param lastJobStatus the state of the job it fired last, or {@code null}
	 */
	public record ScheduleLine(String name, String handler, @Nullable String queue, String when, Instant nextRunAt,
			@Nullable Instant lastFiredAt, @Nullable Long lastJobId, @Nullable JobStatus lastJobStatus,
			boolean paused, boolean orphaned) {
	}

}
