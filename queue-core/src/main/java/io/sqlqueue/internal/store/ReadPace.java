package io.sqlqueue.internal.store;

import java.time.Duration;

/**
 * How soon a read that walks an index from its head is repeated: after its own interval, or
 * {@link #SHARE} times as long as it last took if that is longer. Such reads (the claim from
 * the head, the counts of queued and running jobs, the reaper's read of expired leases) walk
 * every entry that died since the database's horizon was last free, and while a long
 * transaction holds the horizon nothing clears those: a read of milliseconds takes seconds
 * after some minutes under load, and on a fixed schedule such reads came to take most of the
 * database's time. Paced by what they last cost, they take at most about a tenth of it, and
 * keep their own interval once quick again.
 */
public final class ReadPace {

	/** The wait after a read, in multiples of how long it took. */
	public static final int SHARE = 10;

	private ReadPace() {
	}

	/** The wait before the next read: {@code every}, or {@link #SHARE} times {@code took} if longer. */
	public static Duration next(Duration every, Duration took) {
		Duration paced = took.multipliedBy(SHARE);
		return (paced.compareTo(every) > 0) ? paced : every;
	}

	/**
	 * As {@link #next}, but never more than {@link #SHARE} intervals: for a loop whose interval
	 * is a setting, so that one pass that stalled (a pause of the JVM, lock waits, a frozen
	 * connection) rather than walked an index delays the next by ten intervals at most, not by
	 * ten times the stall.
	 */
	public static Duration nextWithin(Duration every, Duration took) {
		Duration paced = next(every, took);
		Duration longest = every.multipliedBy(SHARE);
		return (paced.compareTo(longest) > 0) ? longest : paced;
	}

}
