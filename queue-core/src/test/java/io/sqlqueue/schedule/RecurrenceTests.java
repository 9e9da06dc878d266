package io.sqlqueue.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RecurrenceTests {

	private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

	private static List<Instant> ticksOn(Recurrence recurrence, LocalDate day) {
		Instant end = day.plusDays(1).atStartOfDay(BERLIN).toInstant();
		List<Instant> ticks = new ArrayList<>();
		for (Instant tick = recurrence.next(day.atStartOfDay(BERLIN).toInstant().minusSeconds(1)); tick.isBefore(end);
				tick = recurrence.next(tick)) {
			ticks.add(tick);
		}
		return ticks;
	}

	@Test
	void aTimeThatDoesNotExistOnTheSpringForwardDayFiresOnce() {
		// 2026-03-29: Berlin's clocks go from 02:00 to 03:00.
		List<Instant> ticks = ticksOn(Recurrence.cron("0 30 2 * * *", "Europe/Berlin"), LocalDate.of(2026, 3, 29));
		assertThat(ticks).hasSize(1);
	}

	@Test
	void aTimeThatOccursTwiceOnTheFallBackDayFiresOnce() {
		// 2026-10-25: Berlin's clocks go from 03:00 back to 02:00.
		List<Instant> ticks = ticksOn(Recurrence.cron("0 30 2 * * *", "Europe/Berlin"), LocalDate.of(2026, 10, 25));
		assertThat(ticks).hasSize(1);
	}

	@Test
	void anOrdinaryDayFiresOnceAtItsLocalTime() {
		List<Instant> ticks = ticksOn(Recurrence.cron("0 30 2 * * *", "Europe/Berlin"), LocalDate.of(2026, 6, 1));
		assertThat(ticks).hasSize(1);
		assertThat(ticks.get(0).atZone(BERLIN).getHour()).isEqualTo(2);
	}

	@Test
	void badPartsAreRefusedWithAMessageThatSaysWhat() {
		assertThatThrownBy(() -> Recurrence.cron("0 0 25 * * *", "UTC")).hasMessageContaining("Invalid cron expression '0 0 25 * * *'");
		assertThatThrownBy(() -> Recurrence.cron("0 0 2 * * *", "Mars/Olympus")).hasMessageContaining("Unknown time zone 'Mars/Olympus'");
		assertThatThrownBy(() -> Recurrence.of("0 0 2 * * *", null, Duration.ofMinutes(5))).hasMessageContaining("not both");
		assertThatThrownBy(() -> Recurrence.of(null, null, null)).hasMessageContaining("not neither");
		assertThatThrownBy(() -> Recurrence.every(Duration.ofMillis(10))).hasMessageContaining("at least 1s");
	}

	@Test
	void anIntervalTicksFromTheGivenTimeAndItsPeriodIsTheInterval() {
		Recurrence every = Recurrence.every(Duration.ofMinutes(15));
		Instant now = Instant.parse("2026-11-23T12:00:00Z");
		assertThat(every.next(now)).isEqualTo(now.plus(Duration.ofMinutes(15)));
		assertThat(every.period(now)).isEqualTo(Duration.ofMinutes(15));
		assertThat(Recurrence.cron("0 0 2 * * *", "UTC").period(now)).isEqualTo(Duration.ofDays(1));
	}

}
