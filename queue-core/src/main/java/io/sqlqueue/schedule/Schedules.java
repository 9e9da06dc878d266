package io.sqlqueue.schedule;

import java.util.List;
import java.util.Optional;

/**
 * Recurring jobs: declare schedules (from the code at start-up, or at runtime), operate
 * them (pause, resume, trigger now, delete), and fire the due ones.
 * <p>
 * Each schedule's next due time is stored, on the database's clock. A firing pass reads
 * the due schedules and, for each, in one transaction: takes the tick by compare-and-set
 * on the row's version, enqueues the tick's job (its {@code JobContext.scheduledFor()} is
 * the tick) and moves the next due time on. Any number of instances may fire, each tick
 * gives one job, and a JVM's clock plays no part: ticks are computed from the database's
 * readings. A firing passes over a schedule whose row another transaction holds (where
 * the database can tell, see the schedule store) and fires it at a later pass.
 * <p>
 * <b>Operations race the firer safely.</b> {@link #trigger}, {@link #pause},
 * {@link #resume}, {@link #update} (and {@link #declare}) write by compare-and-set on the
 * version they read, as the firer does: one that finds the schedule changed since its read
 * (the firer moved it on) reads it again and redoes its change, up to
 * {@value #MAX_RACES} times, then fails with {@link ConcurrentScheduleChangeException}
 * (nothing changed). So a trigger never puts back a tick the firer has just fired. Inside a
 * caller's REPEATABLE READ transaction the read cannot see the firer's change, and a lost
 * race fails that way at once.
 * <p>
 * <b>Schedules carry their jobs' settings</b> ({@link ScheduleDefinition}): the queue,
 * priority, attempts, expiry and concurrency key, filled in from the handler where the
 * schedule is registered, so an instance without the handler (a rolling deploy, another
 * application on the same schema) fires the same job into the handler's queue. A schedule
 * stored without its queue or attempts (before they were stored, or registered where the
 * handler was unknown) is fired only by an instance that has the handler, with that
 * handler's settings; an instance without it leaves the tick for one that has it, never
 * firing into a queue by guess. Declaring it again at start-up stores the settings.
 * <p>
 * The implementation the starter builds is {@code io.sqlqueue.internal.schedule.DefaultSchedules}.
 */
public interface Schedules {

	/** Most missed ticks that {@link MisfirePolicy#EACH} enqueues at once (the newest). */
	int MAX_MISSED_TICKS = 100;

	/** Most times an operation reads a schedule again after losing its compare-and-set. */
	int MAX_RACES = 5;

	/**
	 * Stores the schedules the code declares from one source (at start-up): new ones start
	 * at their next tick, changed ones take their new definition (and, with a new
	 * recurrence, their new next tick), and those of this source that the code no longer
	 * declares stop firing and show as orphaned until deleted, once no live instance declares
	 * them (an instance of another version may; see docs/recurring-jobs.md, "Versions").
	 * @throws IllegalStateException naming the schedule, when its handler is unknown here
	 */
	void declare(ScheduleSource source, List<ScheduleDefinition> schedules);

	/**
	 * Adds a schedule at runtime; it fires first at its next tick. Its jobs' settings that
	 * it leaves open are filled in from the handler, when this instance has it.
	 * @throws IllegalStateException when a schedule of that name exists
	 */
	ScheduleRecord create(ScheduleDefinition schedule);

	/**
	 * Changes a schedule at runtime; a new recurrence starts at its next tick. Its jobs'
	 * settings that it leaves open are filled in from the handler, when this instance has it.
	 * @throws IllegalStateException when there is no schedule of that name
	 * @throws ConcurrentScheduleChangeException when it kept changing under this change
	 */
	ScheduleRecord update(ScheduleDefinition schedule);

	/**
	 * Stops a schedule firing until resumed; false when there is none of that name.
	 * @throws ConcurrentScheduleChangeException when it kept changing under this change
	 */
	boolean pause(String name);

	/**
	 * Fires a paused schedule again, from its next tick (ticks missed while paused are not
	 * fired); false when there is none of that name.
	 * @throws ConcurrentScheduleChangeException when it kept changing under this change
	 */
	boolean resume(String name);

	/**
	 * Enqueues the schedule's job now, besides its ticks (its next due time stays); the
	 * job's {@code scheduledFor()} is now.
	 * @return the job's id
	 * @throws IllegalStateException when there is no schedule of that name, or its jobs'
	 * settings are not stored and this instance lacks its handler
	 * @throws ConcurrentScheduleChangeException when it kept changing under this trigger
	 */
	long trigger(String name);

	boolean delete(String name);

	List<ScheduleRecord> list();

	Optional<ScheduleRecord> find(String name);

	/** One firing pass: every due schedule (up to 100) fires its due ticks; returns what it did. */
	List<FiredTick> fireDue();

}
