package io.sqlqueue.internal.store;

import java.sql.ResultSet;
import java.sql.SQLException;

import io.sqlqueue.flow.RateLimit;

/**
 * The starts counted against one rate limit: {@code starts} in the window that began at
 * {@code start} (epoch milliseconds on the database's clock, a multiple of the period), and
 * {@code previous} in the window before it. Immutable; {@link #plus} counts more.
 * <p>
 * A sliding window: at time {@code now}, {@code elapsed} into the current window, the starts
 * that count are this window's and, of the previous window's, the share that the period not
 * yet elapsed covers, rounded down: {@code starts + floor(previous * (period - elapsed) / period)}.
 * The limit allows what that leaves, so no window holds more than the limit, and a steady
 * backlog starts exactly the limit's count per period, spread over it (rounding the share
 * down lets the last moments of a window use what the previous one left, so a limit of 1 per
 * period gives one start per period, not one per two). Whole-number arithmetic, exact.
 */
public record RateWindow(long start, int starts, int previous) {

	/** No starts yet. */
	public static final RateWindow EMPTY = new RateWindow(Long.MIN_VALUE, 0, 0);

	/** The window of a row read with the flow tables' window columns. */
	static RateWindow read(ResultSet rs) throws SQLException {
		return new RateWindow(rs.getLong("window_start"), rs.getInt("window_starts"), rs.getInt("previous_starts"));
	}

	/**
	 * This window as of {@code now}: rolled forward when a new window has begun. A {@code now}
	 * before this window's start (a reading of the clock taken before the one that wrote it)
	 * counts as its start, so that accounting never goes back.
	 */
	public RateWindow at(long now, long period) {
		long current = alignedStart(Math.max(now, this.start), period);
		if (current == this.start) {
			return this;
		}
		return new RateWindow(current, 0, (current - period == this.start) ? this.starts : 0);
	}

	/** How many more starts the limit allows at {@code now}. */
	public int room(RateLimit rate, long now) {
		return (int) Math.max(0, rate.starts() - counted(now, rate.periodMillis()));
	}

	/** The starts that count at {@code now} in a sliding window of {@code period}. */
	public long counted(long now, long period) {
		RateWindow window = at(now, period);
		return window.starts + (long) window.previous * (period - window.elapsed(now)) / period;
	}

	/**
	 * How long from {@code now} until the limit allows one more start (at least 1 ms), when it
	 * allows none now.
	 */
	public long millisUntilRoom(RateLimit rate, long now) {
		long period = rate.periodMillis();
		RateWindow window = at(now, period);
		long from = Math.max(now, window.start);
		long free = rate.starts() - 1L - window.starts;
		if (free >= 0 && window.previous > 0) {
			// Room once floor(previous * (period - elapsed) / period) <= free.
			long elapsed = period - ceilDiv((free + 1) * period, window.previous) + 1;
			if (elapsed < period) {
				return Math.max(1, window.start + Math.max(0, elapsed) - from);
			}
		}
		// In the next window, where this window's starts are the previous ones.
		long elapsed = (window.starts == 0) ? 0
				: Math.max(0, period - ceilDiv((long) rate.starts() * period, window.starts) + 1);
		return Math.max(1, window.start + period + elapsed - from);
	}

	/** This window as of {@code now} with {@code count} more starts. */
	public RateWindow plus(int count, long now, long period) {
		RateWindow window = at(now, period);
		return new RateWindow(window.start, window.starts + count, window.previous);
	}

	/** When this window stops counting for anything: two periods after it began. */
	public long expiresAt(long period) {
		return this.start + 2 * period;
	}

	private long elapsed(long now) {
		return Math.max(0, now - this.start);
	}

	private static long ceilDiv(long dividend, long divisor) {
		return -Math.floorDiv(-dividend, divisor);
	}

	private static long alignedStart(long now, long period) {
		return now - Math.floorMod(now, period);
	}

}
