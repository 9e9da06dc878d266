package io.sqlqueue.dashboard;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DurationsTests {

	@Test
	void readsAsAnOperatorSaysIt() {
		assertThat(Durations.human(Duration.ofSeconds(5))).isEqualTo("5 s");
		assertThat(Durations.human(Duration.ofSeconds(90))).isEqualTo("1 min 30 s");
		assertThat(Durations.human(Duration.ofHours(2))).isEqualTo("2 h");
		assertThat(Durations.human(Duration.ofDays(1).plusHours(2).plusMillis(250))).isEqualTo("1 d 2 h 250 ms");
		assertThat(Durations.human(Duration.ZERO)).isEqualTo("0 s");
		assertThat(Durations.human(Duration.ofNanos(300))).isEqualTo("300 ns");
	}

}
