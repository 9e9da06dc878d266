package io.sqlqueue.boot.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Settings of one queue.
 */
public class QueueProperties {

	/**
	 * Workers for this queue. When not set, 'sqlqueue.manager.concurrency'.
	 */
	private @Nullable Integer concurrency;

	/**
	 * Most jobs of this queue running at once across every instance. When not set, only
	 * each instance's own 'concurrency' holds.
	 */
	private @Nullable Integer globalConcurrency;

	/**
	 * Most job starts of this queue per period across every instance, written
	 * starts/period, such as '100/1m' or '10/1s'.
	 */
	private @Nullable String rateLimit;

	/**
	 * Limits for each concurrency key of this queue that a pattern matches: an exact key,
	 * a prefix ending in '*' (each matching key counted on its own), or '*' for every key.
	 */
	private List<KeyLimitProperties> keyLimits = new ArrayList<>();

	/**
	 * Whether this queue's concurrency keys take turns among its due jobs of equal
	 * priority, across every instance, so that one key's flood holds no other key back
	 * (round-robin, or weighted by 'fair-weights'). Takes precedence over
	 * '@JobHandler(fair)' for the queue, also when false.
	 */
	private @Nullable Boolean fair;

	/**
	 * Weights of the fair turns by key pattern (an exact key, or a prefix ending in '*';
	 * in YAML '"[gold:*]": 3'): a key of weight 3 starts three jobs for one of weight 1.
	 * Keys no pattern matches weigh 1. Giving any makes the queue fair.
	 */
	private Map<String, Integer> fairWeights = new LinkedHashMap<>();

	public @Nullable Boolean getFair() {
		return this.fair;
	}

	public void setFair(@Nullable Boolean fair) {
		this.fair = fair;
	}

	public Map<String, Integer> getFairWeights() {
		return this.fairWeights;
	}

	public void setFairWeights(Map<String, Integer> fairWeights) {
		this.fairWeights = fairWeights;
	}

	public @Nullable Integer getConcurrency() {
		return this.concurrency;
	}

	public void setConcurrency(@Nullable Integer concurrency) {
		this.concurrency = concurrency;
	}

	public @Nullable Integer getGlobalConcurrency() {
		return this.globalConcurrency;
	}

	public void setGlobalConcurrency(@Nullable Integer globalConcurrency) {
		this.globalConcurrency = globalConcurrency;
	}

	public @Nullable String getRateLimit() {
		return this.rateLimit;
	}

	public void setRateLimit(@Nullable String rateLimit) {
		this.rateLimit = rateLimit;
	}

	public List<KeyLimitProperties> getKeyLimits() {
		return this.keyLimits;
	}

	public void setKeyLimits(List<KeyLimitProperties> keyLimits) {
		this.keyLimits = keyLimits;
	}

}
