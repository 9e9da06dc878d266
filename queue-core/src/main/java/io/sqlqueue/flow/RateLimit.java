package io.sqlqueue.flow;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.sqlqueue.handler.Durations;

/**
 * At most {@code starts} job starts per {@code period}, across every instance. Written
 * {@code 100/1m}, {@code 10/1s} or {@code 5/500ms}: a count, a slash, and a duration as in
 * {@code @JobHandler(timeout)}.
 * <p>
 * Starts are counted in windows of the period, aligned to multiples of it on the database's
 * clock; a claim may start as many jobs as the limit leaves after this window's starts and
 * the part of the previous window's starts that the period still covers (a sliding window).
 * So no window ever holds more than {@code starts}, and a steady backlog starts
 * {@code starts} per period.
 */
public record RateLimit(int starts, Duration period) {

	/** The shortest period: shorter windows would be narrower than a claim's round trip. */
	public static final Duration MIN_PERIOD = Duration.ofMillis(10);

	/** The longest period. */
	public static final Duration MAX_PERIOD = Duration.ofDays(7);

	private static final Pattern TEXT = Pattern.compile("\\s*(\\d{1,10})\\s*/\\s*(\\S+)\\s*");

	public RateLimit {
		if (starts < 1) {
			throw new IllegalArgumentException("A rate limit needs at least 1 start per period, got " + starts);
		}
		if (period.compareTo(MIN_PERIOD) < 0 || period.compareTo(MAX_PERIOD) > 0) {
			throw new IllegalArgumentException("A rate limit's period must be from " + MIN_PERIOD.toMillis()
					+ " ms to " + MAX_PERIOD.toDays() + " days, got " + period);
		}
		if (period.toNanos() % 1_000_000 != 0) {
			throw new IllegalArgumentException("A rate limit's period must be whole milliseconds, got " + period);
		}
	}

	/**
	 * Parses {@code starts/period}, such as {@code 100/1m}.
	 * @throws IllegalArgumentException saying what is wrong with the text
	 */
	public static RateLimit parse(String text) {
		Matcher matcher = TEXT.matcher(text);
		if (!matcher.matches()) {
			throw new IllegalArgumentException("'" + text + "' is not a rate limit: write starts/period, "
					+ "such as 100/1m, 10/1s or 5/500ms");
		}
		long starts = Long.parseLong(matcher.group(1));
		if (starts > Integer.MAX_VALUE) {
			throw new IllegalArgumentException("'" + text + "' allows too many starts: at most " + Integer.MAX_VALUE);
		}
		return new RateLimit((int) starts, Durations.parse(matcher.group(2)));
	}

	public long periodMillis() {
		return this.period.toMillis();
	}

	@Override
	public String toString() {
		long millis = this.period.toMillis();
		String period = (millis % 86_400_000 == 0) ? (millis / 86_400_000) + "d"
				: (millis % 3_600_000 == 0) ? (millis / 3_600_000) + "h"
						: (millis % 60_000 == 0) ? (millis / 60_000) + "m"
								: (millis % 1000 == 0) ? (millis / 1000) + "s" : millis + "ms";
		return this.starts + "/" + period;
	}

}
