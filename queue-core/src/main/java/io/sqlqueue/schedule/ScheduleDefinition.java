package io.sqlqueue.schedule;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Job;
import io.sqlqueue.Names;

/**
 * A schedule as declared: which handler runs, with what fixed payload (JSON), when, by
 * which policies, and with which settings its jobs are enqueued.
 * <p>
 * The settings are stored with the schedule, so that every instance fires the same job,
 * whether it has the handler or not. Those left open ({@code null}) are filled in from the
 * handler where the schedule is registered (the queue, and the attempts: the handler's, else
 * the configured default); an instance that registers it without the handler leaves them
 * open, and then only an instance with the handler fires it (see {@link Schedules}). A
 * tick's job carries no unique key nor group key: the {@link OverlapPolicy} says what a tick
 * does while the previous job is unfinished.
 *
 * @param name unique among schedules, like a handler name ({@code [A-Za-z0-9_.-]}, at most 128)
 * @param queue the queue of its jobs, or {@code null} for the handler's own
 * @param payload the JSON every tick's job carries ({@code null} as JSON when there is none)
 * @param priority the priority of its jobs ({@link Job#priority(int)})
 * @param maxAttempts the attempts of its jobs, or {@code null} for the handler's (else the default)
 * @param expireAfter how long after its enqueue a job that has not started is cancelled
 * ({@link Job#expireAfter(Duration)}), or {@code null} for never
 * @param concurrencyKey the key its queue's limits look its jobs up by
 * ({@link Job#concurrencyKey(String)}), or {@code null} for none
 */
public record ScheduleDefinition(String name, String handler, @Nullable String queue, String payload,
		Recurrence recurrence, MisfirePolicy misfire, OverlapPolicy overlap, int priority,
		@Nullable Integer maxAttempts, @Nullable Duration expireAfter, @Nullable String concurrencyKey) {

	public ScheduleDefinition {
		Names.requireHandler(name);
		Names.requireHandler(handler);
		if (queue != null) {
			Names.requireQueue(queue);
		}
		if (maxAttempts != null && maxAttempts < 1) {
			throw new IllegalArgumentException("maxAttempts of schedule '" + name + "' must be at least 1, got "
					+ maxAttempts);
		}
		if (expireAfter != null && (expireAfter.isNegative() || expireAfter.isZero()
				|| expireAfter.compareTo(Job.MAX_DELAY) > 0)) {
			throw new IllegalArgumentException("expireAfter of schedule '" + name + "' must be more than zero and at "
					+ "most " + Job.MAX_DELAY.toDays() + " days, got " + expireAfter);
		}
		Names.requireKey("concurrencyKey", concurrencyKey);
	}

	/** A schedule whose jobs take their settings from the handler. */
	public ScheduleDefinition(String name, String handler, @Nullable String queue, String payload,
			Recurrence recurrence, MisfirePolicy misfire, OverlapPolicy overlap) {
		this(name, handler, queue, payload, recurrence, misfire, overlap, 0, null, null, null);
	}

	/** A schedule with no payload and the default policies. */
	public static ScheduleDefinition of(String name, String handler, Recurrence recurrence) {
		return new ScheduleDefinition(name, handler, null, "null", recurrence, MisfirePolicy.FIRE_ONCE,
				OverlapPolicy.SKIP);
	}

	public ScheduleDefinition withQueue(@Nullable String queue) {
		return new ScheduleDefinition(this.name, this.handler, queue, this.payload, this.recurrence, this.misfire,
				this.overlap, this.priority, this.maxAttempts, this.expireAfter, this.concurrencyKey);
	}

	/** With this payload, as JSON text. */
	public ScheduleDefinition withPayload(String json) {
		return new ScheduleDefinition(this.name, this.handler, this.queue, json, this.recurrence, this.misfire,
				this.overlap, this.priority, this.maxAttempts, this.expireAfter, this.concurrencyKey);
	}

	public ScheduleDefinition withRecurrence(Recurrence recurrence) {
		return new ScheduleDefinition(this.name, this.handler, this.queue, this.payload, recurrence, this.misfire,
				this.overlap, this.priority, this.maxAttempts, this.expireAfter, this.concurrencyKey);
	}

	public ScheduleDefinition withMisfire(MisfirePolicy misfire) {
		return new ScheduleDefinition(this.name, this.handler, this.queue, this.payload, this.recurrence, misfire,
				this.overlap, this.priority, this.maxAttempts, this.expireAfter, this.concurrencyKey);
	}

	public ScheduleDefinition withOverlap(OverlapPolicy overlap) {
		return new ScheduleDefinition(this.name, this.handler, this.queue, this.payload, this.recurrence, this.misfire,
				overlap, this.priority, this.maxAttempts, this.expireAfter, this.concurrencyKey);
	}

	public ScheduleDefinition withPriority(int priority) {
		return new ScheduleDefinition(this.name, this.handler, this.queue, this.payload, this.recurrence, this.misfire,
				this.overlap, priority, this.maxAttempts, this.expireAfter, this.concurrencyKey);
	}

	public ScheduleDefinition withMaxAttempts(@Nullable Integer maxAttempts) {
		return new ScheduleDefinition(this.name, this.handler, this.queue, this.payload, this.recurrence, this.misfire,
				this.overlap, this.priority, maxAttempts, this.expireAfter, this.concurrencyKey);
	}

	public ScheduleDefinition withExpireAfter(@Nullable Duration expireAfter) {
		return new ScheduleDefinition(this.name, this.handler, this.queue, this.payload, this.recurrence, this.misfire,
				this.overlap, this.priority, this.maxAttempts, expireAfter, this.concurrencyKey);
	}

	public ScheduleDefinition withConcurrencyKey(@Nullable String concurrencyKey) {
		return new ScheduleDefinition(this.name, this.handler, this.queue, this.payload, this.recurrence, this.misfire,
				this.overlap, this.priority, this.maxAttempts, this.expireAfter, concurrencyKey);
	}

	/** Whether the settings its jobs need from a handler are stored: any instance can fire it. */
	public boolean settled() {
		return this.queue != null && this.maxAttempts != null;
	}

}
