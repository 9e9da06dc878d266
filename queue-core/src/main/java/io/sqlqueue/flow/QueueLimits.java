package io.sqlqueue.flow;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The limits of one queue: its own ({@code limit}, over all its jobs) and those of its
 * concurrency keys, and its fair turns ({@code fairness}, {@code null} when its jobs run in
 * priority and due order alone). {@code version} moves with every change, so that instances
 * know when to read them again.
 */
public record QueueLimits(String queue, @Nullable Limit limit, List<KeyLimit> keyLimits,
		@Nullable Fairness fairness, long version) {

	public QueueLimits {
		keyLimits = List.copyOf(keyLimits);
	}

	/** Limits without fair turns. */
	public QueueLimits(String queue, @Nullable Limit limit, List<KeyLimit> keyLimits, long version) {
		this(queue, limit, keyLimits, null, version);
	}

	/** A queue without limits. */
	public static QueueLimits none(String queue) {
		return new QueueLimits(queue, null, List.of(), 0);
	}

	/** Neither limits nor fair turns. */
	public boolean isEmpty() {
		return this.limit == null && this.keyLimits.isEmpty() && this.fairness == null;
	}

	/** Whether the queue's keys take turns. */
	public boolean isFair() {
		return this.fairness != null;
	}

	/**
	 * The limit that holds for jobs with this key: of its exact pattern, else of the longest
	 * prefix that matches; {@code null} when none matches (or for no key).
	 */
	public @Nullable Limit limitOf(@Nullable String key) {
		if (key == null) {
			return null;
		}
		KeyLimit best = null;
		for (KeyLimit keyLimit : this.keyLimits) {
			if (!keyLimit.matches(key)) {
				continue;
			}
			if (!keyLimit.isPrefix()) {
				return keyLimit.limit();
			}
			if (best == null || keyLimit.keys().length() > best.keys().length()) {
				best = keyLimit;
			}
		}
		return (best != null) ? best.limit() : null;
	}

	/** Whether any limit counts running jobs. */
	public boolean limitsConcurrency() {
		return (this.limit != null && this.limit.concurrency() != null)
				|| this.keyLimits.stream().anyMatch((keyLimit) -> keyLimit.limit().concurrency() != null);
	}

	/** Whether any limit of a key counts running jobs. */
	public boolean limitsKeyConcurrency() {
		return this.keyLimits.stream().anyMatch((keyLimit) -> keyLimit.limit().concurrency() != null);
	}

	/** The smallest concurrency of a key's limit; {@link Integer#MAX_VALUE} when none has one. */
	public int smallestKeyConcurrency() {
		return this.keyLimits.stream()
			.map((keyLimit) -> keyLimit.limit().concurrency())
			.filter((concurrency) -> concurrency != null)
			.mapToInt(Integer::intValue)
			.min()
			.orElse(Integer.MAX_VALUE);
	}

	/** Whether any limit of a key counts starts. */
	public boolean limitsKeyRates() {
		return this.keyLimits.stream().anyMatch((keyLimit) -> keyLimit.limit().rate() != null);
	}

}
