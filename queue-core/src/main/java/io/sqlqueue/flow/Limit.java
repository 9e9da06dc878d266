package io.sqlqueue.flow;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * What a limit allows: at most {@code concurrency} jobs running at once, and at most
 * {@code rate} starts per period, each across every instance; either may be {@code null}
 * (no such limit), not both. For the jobs of a queue as a whole, or for those of each
 * concurrency key that a {@link KeyLimit} matches.
 */
public record Limit(@Nullable Integer concurrency, @Nullable RateLimit rate) {

	public Limit {
		if (concurrency == null && rate == null) {
			throw new IllegalArgumentException("A limit needs a concurrency, a rate, or both");
		}
		if (concurrency != null && concurrency < 1) {
			throw new IllegalArgumentException("A limit's concurrency must be at least 1, got " + concurrency);
		}
	}

	/** At most this many running at once. */
	public static Limit concurrency(int concurrency) {
		return new Limit(concurrency, null);
	}

	/** At most {@code starts} starts per {@code period}. */
	public static Limit rate(int starts, Duration period) {
		return new Limit(null, new RateLimit(starts, period));
	}

	/** This limit with a rate as well. */
	public Limit withRate(int starts, Duration period) {
		return new Limit(this.concurrency, new RateLimit(starts, period));
	}

	@Override
	public String toString() {
		if (this.rate == null) {
			return "concurrency " + this.concurrency;
		}
		return (this.concurrency != null) ? "concurrency " + this.concurrency + ", rate " + this.rate
				: "rate " + this.rate;
	}

}
