package io.sqlqueue.handler;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long a failed attempt waits before the next: {@code min(max, initial * multiplier^(n-1))},
 * spread by ± {@code jitter} (a fraction) so that jobs that failed together do not all
 * retry together.
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, double multiplier, Duration maxBackoff,
		double jitter) {

	public static final RetryPolicy DEFAULT = new RetryPolicy(10, Duration.ofSeconds(5), 2.0, Duration.ofHours(1),
			0.2);

	public RetryPolicy {
		if (maxAttempts < 1) {
			throw new IllegalArgumentException("maxAttempts must be at least 1");
		}
		if (initialBackoff.isNegative() || maxBackoff.isNegative()) {
			throw new IllegalArgumentException("backoff must not be negative");
		}
		if (multiplier < 1.0) {
			throw new IllegalArgumentException("multiplier must be at least 1");
		}
		if (jitter < 0.0 || jitter >= 1.0) {
			throw new IllegalArgumentException("jitter must be in [0, 1)");
		}
	}

	/** The wait after failed attempt number {@code attempt} (from 1). */
	public Duration backoff(int attempt) {
		double millis = this.initialBackoff.toMillis() * Math.pow(this.multiplier, Math.max(0, attempt - 1));
		millis = Math.min(millis, this.maxBackoff.toMillis());
		if (this.jitter > 0) {
			millis *= 1.0 + ThreadLocalRandom.current().nextDouble(-this.jitter, this.jitter);
		}
		return Duration.ofMillis(Math.round(millis));
	}

}
