package io.sqlqueue.handler;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the durations written in annotations: {@code 500ms}, {@code 30s}, {@code 5m},
 * {@code 2h}, {@code 1d}, or ISO-8601 such as {@code PT5M}.
 */
public final class Durations {

	private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h|d)");

	private Durations() {
	}

	public static Duration parse(String text) {
		String value = text.trim().toLowerCase(Locale.ROOT);
		Matcher simple = SIMPLE.matcher(value);
		if (simple.matches()) {
			long amount = Long.parseLong(simple.group(1));
			return switch (simple.group(2)) {
				case "ms" -> Duration.ofMillis(amount);
				case "s" -> Duration.ofSeconds(amount);
				case "m" -> Duration.ofMinutes(amount);
				case "h" -> Duration.ofHours(amount);
				default -> Duration.ofDays(amount);
			};
		}
		try {
			return Duration.parse(text.trim());
		}
		catch (DateTimeParseException ex) {
			throw new IllegalArgumentException("'" + text + "' is not a duration: use 500ms, 30s, 5m, 2h, 1d or PT5M",
					ex);
		}
	}

}
