package io.sqlqueue.boot.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * Limits for each concurrency key of a queue that a pattern matches.
 */
public class KeyLimitProperties {

	/**
	 * Keys the limit holds for, each counted on its own: an exact key ('stripe'), a prefix
	 * ending in '*' ('customer:*'), or '*' for every key.
	 */
	private @Nullable String keys;

	/**
	 * Most jobs with one such key running at once across every instance.
	 */
	private @Nullable Integer concurrency;

	/**
	 * Most starts of jobs with one such key per period across every instance, written
	 * starts/period, such as '100/1m'.
	 */
	private @Nullable String rateLimit;

	public @Nullable String getKeys() {
		return this.keys;
	}

	public void setKeys(@Nullable String keys) {
		this.keys = keys;
	}

	public @Nullable Integer getConcurrency() {
		return this.concurrency;
	}

	public void setConcurrency(@Nullable Integer concurrency) {
		this.concurrency = concurrency;
	}

	public @Nullable String getRateLimit() {
		return this.rateLimit;
	}

	public void setRateLimit(@Nullable String rateLimit) {
		this.rateLimit = rateLimit;
	}

}
