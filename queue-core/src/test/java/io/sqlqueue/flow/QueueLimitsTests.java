package io.sqlqueue.flow;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QueueLimitsTests {

	private static final Limit EVERY = Limit.concurrency(9);

	private static final Limit CUSTOMERS = Limit.concurrency(2);

	private static final Limit VIPS = Limit.concurrency(5);

	private static final Limit ADA = Limit.rate(1, Duration.ofSeconds(1));

	private final QueueLimits limits = new QueueLimits("q", null, List.of(new KeyLimit("*", EVERY),
			new KeyLimit("customer:*", CUSTOMERS), new KeyLimit("customer:vip:*", VIPS),
			new KeyLimit("customer:vip:ada", ADA)), 1);

	@Test
	void exactPatternWinsThenTheLongestPrefix() {
		assertThat(this.limits.limitOf("customer:vip:ada")).isEqualTo(ADA);
		assertThat(this.limits.limitOf("customer:vip:bob")).isEqualTo(VIPS);
		assertThat(this.limits.limitOf("customer:42")).isEqualTo(CUSTOMERS);
		assertThat(this.limits.limitOf("stripe")).isEqualTo(EVERY);
		assertThat(this.limits.limitOf(null)).isNull();
		assertThat(new QueueLimits("q", null, List.of(new KeyLimit("stripe", ADA)), 1).limitOf("stripes")).isNull();
	}

	@Test
	void patternsHaveAStarOnlyAtTheirEnd() {
		assertThatThrownBy(() -> new KeyLimit("customer:*:mail", EVERY)).hasMessageContaining("only at its end");
		assertThatThrownBy(() -> new KeyLimit("", EVERY)).hasMessageContaining("1 to 255 characters");
		assertThatThrownBy(() -> new KeyLimit("a".repeat(256), EVERY)).hasMessageContaining("1 to 255 characters");
		assertThatThrownBy(() -> new KeyLimit("a\0b", EVERY)).hasMessageContaining("no NUL");
		assertThat(new KeyLimit("a*", EVERY).matches("a")).isTrue();
		assertThat(new KeyLimit("a*", EVERY).matches("ba")).isFalse();
	}

	@Test
	void tellsWhatItCounts() {
		assertThat(this.limits.limitsConcurrency()).isTrue();
		assertThat(this.limits.limitsKeyRates()).isTrue();
		QueueLimits rateOnly = new QueueLimits("q", Limit.rate(5, Duration.ofSeconds(1)), List.of(), 1);
		assertThat(rateOnly.limitsConcurrency()).isFalse();
		assertThat(rateOnly.limitsKeyRates()).isFalse();
		assertThat(QueueLimits.none("q").isEmpty()).isTrue();
	}

}
