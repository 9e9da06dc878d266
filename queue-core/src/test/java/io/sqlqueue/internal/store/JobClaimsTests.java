package io.sqlqueue.internal.store;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the next scheduled claim from the head comes ({@link JobClaims}): a second after a
 * quick read from the head, ten times as long as a slow one took after it.
 */
class JobClaimsTests {

	private static final long START = 1_000_000_000L;

	@Test
	void afterAQuickReadFromTheHeadTheNextComesASecondLater() {
		long end = START + Duration.ofMillis(5).toNanos();
		assertThat(JobClaims.nextHeadAfter(START, end)).isEqualTo(end + JobClaims.HEAD_EVERY.toNanos());
	}

	@Test
	void afterASlowReadFromTheHeadTheNextWaitsTenTimesAsLong() {
		long end = START + Duration.ofMillis(600).toNanos();
		assertThat(JobClaims.nextHeadAfter(START, end)).isEqualTo(end + Duration.ofSeconds(6).toNanos());
	}

}
