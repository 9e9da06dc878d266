package io.sqlqueue.flow;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RateLimitTests {

	@Test
	void parsesStartsPerPeriod() {
		assertThat(RateLimit.parse("100/1m")).isEqualTo(new RateLimit(100, Duration.ofMinutes(1)));
		assertThat(RateLimit.parse(" 5 / 500ms ")).isEqualTo(new RateLimit(5, Duration.ofMillis(500)));
		assertThat(RateLimit.parse("3/PT2S")).isEqualTo(new RateLimit(3, Duration.ofSeconds(2)));
	}

	@Test
	void printsAsItIsWritten() {
		for (String text : new String[] { "100/1m", "10/1s", "5/500ms", "2/3h", "1000/1d", "7/1500ms" }) {
			assertThat(RateLimit.parse(text)).hasToString(text);
		}
	}

	@Test
	void refusesWhatIsNoRateLimit() {
		assertThatThrownBy(() -> RateLimit.parse("100")).hasMessageContaining("is not a rate limit");
		assertThatThrownBy(() -> RateLimit.parse("x/1s")).hasMessageContaining("is not a rate limit");
		assertThatThrownBy(() -> RateLimit.parse("-1/1s")).hasMessageContaining("is not a rate limit");
		assertThatThrownBy(() -> RateLimit.parse("5/soon")).hasMessageContaining("is not a duration");
		assertThatThrownBy(() -> RateLimit.parse("0/1s")).hasMessageContaining("at least 1 start");
		assertThatThrownBy(() -> RateLimit.parse("9999999999/1s")).hasMessageContaining("too many starts");
		assertThatThrownBy(() -> RateLimit.parse("5/5ms")).hasMessageContaining("from 10 ms to 7 days");
		assertThatThrownBy(() -> RateLimit.parse("5/8d")).hasMessageContaining("from 10 ms to 7 days");
		assertThatThrownBy(() -> new RateLimit(5, Duration.ofNanos(10_500_000))).hasMessageContaining("whole milliseconds");
	}

	@Test
	void aLimitNeedsConcurrencyOrRate() {
		assertThatThrownBy(() -> new Limit(null, null)).hasMessageContaining("a concurrency, a rate, or both");
		assertThatThrownBy(() -> Limit.concurrency(0)).hasMessageContaining("at least 1");
		assertThat(Limit.concurrency(2).withRate(10, Duration.ofSeconds(1))).hasToString("concurrency 2, rate 10/1s");
	}

}
