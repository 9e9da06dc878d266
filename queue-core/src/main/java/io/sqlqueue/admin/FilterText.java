package io.sqlqueue.admin;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;

/**
 * A {@link JobFilter} from request parameters, as the Actuator endpoint and the dashboard take
 * them, so both read a filter the same way: {@code queue}, {@code handler}, {@code status}
 * (any case), {@code search}, {@code batch} (an id), {@code tags} (comma-separated, or
 * repeated), {@code meta} and {@code payload} ({@code name=value} and {@code path=value},
 * repeated for more; the value may hold any character, {@code =} too), {@code createdFrom}
 * and {@code createdBefore} (ISO-8601 instants such as {@code 2026-11-27T08:00:00Z}),
 * {@code parked} ({@code true}: only jobs parked on a durable sleep or a wait for a signal). A
 * blank value is left out.
 */
public final class FilterText {

	/** The parameters a filter reads. */
	public static final List<String> PARAMETERS = List.of("queue", "handler", "status", "search", "batch", "tags",
			"meta", "payload", "createdFrom", "createdBefore", "parked");

	private FilterText() {
	}

	/**
	 * The filter these parameters describe.
	 * @param parameter the values of a parameter by name, empty when it is absent
	 * @throws RefusedException ({@link Refusal#INVALID_FILTER}) that says which parameter is
	 * malformed
	 */
	public static JobFilter parse(Function<String, List<String>> parameter) {
		JobFilter.Builder filter = JobFilter.builder()
			.queue(single(parameter, "queue"))
			.handler(single(parameter, "handler"))
			.search(single(parameter, "search"));
		String status = single(parameter, "status");
		if (status != null) {
			try {
				filter.status(JobStatus.valueOf(status.toUpperCase(Locale.ROOT)));
			}
			catch (IllegalArgumentException ex) {
				throw invalid("'status' must be one of " + Arrays.stream(JobStatus.values())
					.map(JobStatus::name)
					.collect(Collectors.joining(", ")));
			}
		}
		String batch = single(parameter, "batch");
		if (batch != null) {
			try {
				filter.batch(Long.parseLong(batch));
			}
			catch (NumberFormatException ex) {
				throw invalid("'batch' must be a batch id");
			}
		}
		for (String tags : values(parameter, "tags")) {
			for (String tag : tags.split(",")) {
				if (!tag.isBlank()) {
					filter.tag(tag.strip());
				}
			}
		}
		for (String entry : values(parameter, "meta")) {
			String[] pair = pair("meta", entry);
			filter.meta(pair[0], pair[1]);
		}
		for (String entry : values(parameter, "payload")) {
			String[] pair = pair("payload", entry);
			filter.payload(pair[0], pair[1]);
		}
		filter.createdFrom(instant(parameter, "createdFrom")).createdBefore(instant(parameter, "createdBefore"));
		String parked = single(parameter, "parked");
		if (parked != null && !parked.equalsIgnoreCase("true") && !parked.equalsIgnoreCase("false")) {
			throw invalid("'parked' must be true or false, not '" + parked + "'");
		}
		return filter.parked(Boolean.parseBoolean(parked)).build();
	}

	private static String[] pair(String parameter, String entry) {
		int equals = entry.indexOf('=');
		if (equals <= 0) {
			throw invalid("'" + parameter + "' must be name=value, not '" + entry + "'");
		}
		return new String[] { entry.substring(0, equals).strip(), entry.substring(equals + 1) };
	}

	private static @Nullable Instant instant(Function<String, List<String>> parameter, String name) {
		String value = single(parameter, name);
		try {
			return (value != null) ? Instant.parse(value) : null;
		}
		catch (DateTimeParseException ex) {
			throw invalid("'" + name + "' must be an ISO-8601 instant such as 2026-11-27T08:00:00Z, not '" + value
					+ "'");
		}
	}

	private static @Nullable String single(Function<String, List<String>> parameter, String name) {
		List<String> values = values(parameter, name);
		if (values.size() > 1) {
			throw invalid("'" + name + "' is given " + values.size() + " times; give it once");
		}
		return values.isEmpty() ? null : values.get(0).strip();
	}

	private static List<String> values(Function<String, List<String>> parameter, String name) {
		List<String> values = parameter.apply(name);
		return (values != null) ? values.stream().filter((value) -> !value.isBlank()).toList() : List.of();
	}

	private static RefusedException invalid(String message) {
		return new RefusedException(Refusal.INVALID_FILTER, message);
	}

}
