package io.sqlqueue.internal.store;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wait before a read is repeated ({@link ReadPace}): its interval after a quick read, ten
 * times as long as a slow one took, and for a loop's pass never more than ten intervals.
 */
class ReadPaceTests {

	private static final Duration EVERY = Duration.ofSeconds(15);

	@Test
	void afterAQuickReadTheIntervalHolds() {
		assertThat(ReadPace.next(EVERY, Duration.ofMillis(40))).isEqualTo(EVERY);
		assertThat(ReadPace.nextWithin(EVERY, Duration.ofMillis(40))).isEqualTo(EVERY);
	}

	@Test
	void afterASlowReadTheNextWaitsTenTimesAsLong() {
		assertThat(ReadPace.next(EVERY, Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(30));
		assertThat(ReadPace.nextWithin(EVERY, Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void aLoopsPassThatStalledDelaysTheNextByTenIntervalsAtMost() {
		assertThat(ReadPace.next(EVERY, Duration.ofMinutes(5))).isEqualTo(Duration.ofMinutes(50));
		assertThat(ReadPace.nextWithin(EVERY, Duration.ofMinutes(5))).isEqualTo(Duration.ofSeconds(150));
	}

}
