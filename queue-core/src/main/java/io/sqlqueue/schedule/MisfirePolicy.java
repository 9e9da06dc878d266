package io.sqlqueue.schedule;

/**
 * What a schedule does with ticks it missed (every instance was down, or the schedule's
 * firing was held up) once it fires again.
 */
public enum MisfirePolicy {

	/** One job for all the missed ticks, for the latest of them (the default). */
	FIRE_ONCE,

	/** No job for missed ticks: only a tick whose next one is still ahead fires. */
	SKIP,

	/** One job for each missed tick, oldest first, at most {@link Schedules#MAX_MISSED_TICKS}. */
	EACH

}
