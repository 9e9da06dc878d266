package io.sqlqueue.dashboard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Durations as an operator reads them: {@code 5 s}, {@code 1 min 30 s}, {@code 2 h}, not {@code PT5S}. */
final class Durations {

	private Durations() {
	}

	/** Days, hours, minutes, seconds and milliseconds, largest first, leaving out the zero ones. */
	static String human(Duration duration) {
		if (duration.isNegative()) {
			return "-" + human(duration.negated());
		}
		if (duration.isZero()) {
			return "0 s";
		}
		List<String> parts = new ArrayList<>();
		add(parts, duration.toDaysPart(), "d");
		add(parts, duration.toHoursPart(), "h");
		add(parts, duration.toMinutesPart(), "min");
		add(parts, duration.toSecondsPart(), "s");
		add(parts, duration.toMillisPart(), "ms");
		return parts.isEmpty() ? duration.toNanos() + " ns" : String.join(" ", parts);
	}

	private static void add(List<String> parts, long amount, String unit) {
		if (amount != 0) {
			parts.add(amount + " " + unit);
		}
	}

}
