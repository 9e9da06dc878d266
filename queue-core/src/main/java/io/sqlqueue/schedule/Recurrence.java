package io.sqlqueue.schedule;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.support.CronExpression;

/**
 * When a schedule's ticks fall: a cron expression in a time zone (Spring's
 * {@link CronExpression}: six fields, seconds first, e.g. {@code 0 0 2 * * *}), or a fixed
 * interval. Ticks are computed from the database's clock readings, never the JVM's.
 * <p>
 * Daylight-saving transitions: a local time that does not exist on a spring-forward day
 * (02:30 in Europe/Berlin) fires once, moved forward by the gap (03:30); a local time that
 * occurs twice on a fall-back day fires once, at its first occurrence. (Spring's
 * {@link CronExpression} on zoned times would skip the first and fire the second twice.)
 */
public final class Recurrence {

	private final @Nullable CronExpression cron;

	private final @Nullable ZoneId zone;

	private final @Nullable Duration every;

	private Recurrence(@Nullable CronExpression cron, @Nullable ZoneId zone, @Nullable Duration every) {
		this.cron = cron;
		this.zone = zone;
		this.every = every;
	}

	/** @throws IllegalArgumentException naming what is wrong with the expression or the zone */
	public static Recurrence cron(String expression, @Nullable String zone) {
		ZoneId zoneId;
		try {
			zoneId = (zone != null && !zone.isBlank()) ? ZoneId.of(zone) : ZoneId.of("UTC");
		}
		catch (DateTimeException ex) {
			throw new IllegalArgumentException("Unknown time zone '" + zone + "': " + ex.getMessage(), ex);
		}
		try {
			return new Recurrence(CronExpression.parse(expression), zoneId, null);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Invalid cron expression '" + expression + "': " + ex.getMessage()
					+ " (six fields, seconds first, e.g. '0 0 2 * * *')", ex);
		}
	}

	/** @throws IllegalArgumentException when the interval is under one second */
	public static Recurrence every(Duration interval) {
		if (interval.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new IllegalArgumentException("A schedule's interval must be at least 1s, not " + interval);
		}
		return new Recurrence(null, null, interval);
	}

	/** From stored or configured parts: exactly one of {@code cron} and {@code every}. */
	public static Recurrence of(@Nullable String cron, @Nullable String zone, @Nullable Duration every) {
		if ((cron == null) == (every == null)) {
			throw new IllegalArgumentException("A schedule needs either a cron expression or an interval (every), "
					+ "not " + ((cron == null) ? "neither" : "both"));
		}
		return (cron != null) ? cron(cron, zone) : every(Objects.requireNonNull(every));
	}

	/** The first tick strictly after {@code after}. */
	public Instant next(Instant after) {
		if (this.every != null) {
			return after.plus(this.every);
		}
		// On local date-times, then placed in the zone: a local time in a spring-forward gap
		// moves past the gap (fires once), and one that occurs twice takes its first
		// occurrence only, since the next tick is sought after that local time.
		ZoneId zone = Objects.requireNonNull(this.zone);
		LocalDateTime local = after.atZone(zone).toLocalDateTime();
		while (true) {
			LocalDateTime next = Objects.requireNonNull(this.cron).next(local);
			if (next == null) {
				throw new IllegalStateException("Cron expression '" + this.cron + "' has no tick after " + after);
			}
			Instant tick = ZonedDateTime.ofLocal(next, zone, null).toInstant();
			if (tick.isAfter(after)) {
				return tick;
			}
			local = next;
		}
	}

	/**
	 * The first tick of a schedule that starts now: for an interval, one interval from now;
	 * for cron, its next tick.
	 */
	public Instant first(Instant now) {
		return next(now);
	}

	/** The time between the first two ticks after {@code now}: how far behind is too far. */
	public Duration period(Instant now) {
		Instant first = next(now);
		return Duration.between(first, next(first));
	}

	public @Nullable String cron() {
		return (this.cron != null) ? this.cron.toString() : null;
	}

	public @Nullable String zone() {
		return (this.zone != null) ? this.zone.getId() : null;
	}

	public @Nullable Duration every() {
		return this.every;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other instanceof Recurrence that && Objects.equals(cron(), that.cron())
				&& Objects.equals(zone(), that.zone()) && Objects.equals(this.every, that.every);
	}

	@Override
	public int hashCode() {
		return Objects.hash(cron(), zone(), this.every);
	}

	@Override
	public String toString() {
		return (this.every != null) ? "every " + this.every : "cron '" + this.cron + "' in " + this.zone;
	}

}
