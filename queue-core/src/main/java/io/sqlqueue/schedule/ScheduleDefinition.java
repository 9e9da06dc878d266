package io.sqlqueue.schedule;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;

/**
 * A schedule as declared: which handler runs, with what fixed payload (JSON), when, and by
 * which policies.
 *
 * @param name unique among schedules, like a handler name ({@code [A-Za-z0-9_.-]}, at most 128)
 * @param queue the queue of its jobs, or {@code null} for the handler's own
 * @param payload the JSON every tick's job carries ({@code null} as JSON when there is none)
 */
public record ScheduleDefinition(String name, String handler, @Nullable String queue, String payload,
		Recurrence recurrence, MisfirePolicy misfire, OverlapPolicy overlap) {

	public ScheduleDefinition {
		Names.requireHandler(name);
		Names.requireHandler(handler);
		if (queue != null) {
			Names.requireQueue(queue);
		}
	}

	/** A schedule with no payload and the default policies. */
	public static ScheduleDefinition of(String name, String handler, Recurrence recurrence) {
		return new ScheduleDefinition(name, handler, null, "null", recurrence, MisfirePolicy.FIRE_ONCE,
				OverlapPolicy.SKIP);
	}

	public ScheduleDefinition withQueue(@Nullable String queue) {
		return new ScheduleDefinition(this.name, this.handler, queue, this.payload, this.recurrence, this.misfire,
				this.overlap);
	}

	/** With this payload, as JSON text. */
	public ScheduleDefinition withPayload(String json) {
		return new ScheduleDefinition(this.name, this.handler, this.queue, json, this.recurrence, this.misfire,
				this.overlap);
	}

	public ScheduleDefinition withRecurrence(Recurrence recurrence) {
		return new ScheduleDefinition(this.name, this.handler, this.queue, this.payload, recurrence, this.misfire,
				this.overlap);
	}

	public ScheduleDefinition withMisfire(MisfirePolicy misfire) {
		return new ScheduleDefinition(this.name, this.handler, this.queue, this.payload, this.recurrence, misfire,
				this.overlap);
	}

	public ScheduleDefinition withOverlap(OverlapPolicy overlap) {
		return new ScheduleDefinition(this.name, this.handler, this.queue, this.payload, this.recurrence, this.misfire,
				overlap);
	}

}
