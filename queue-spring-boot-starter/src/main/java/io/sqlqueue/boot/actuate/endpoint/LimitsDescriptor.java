package io.sqlqueue.boot.actuate.endpoint;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.flow.FairKeyShare;
import io.sqlqueue.flow.Fairness;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.QueueLimits;

/**
 * A queue's limits (docs/flow-control.md).
 * @param concurrency the most of its jobs running at once, or {@code null} for no such limit
 * @param rateLimit the most starts per period ({@code 100/1m}), or {@code null}
 * @param keyLimits the limits of its concurrency keys, by key pattern
 * @param fairness its fair turns, or {@code null} when its keys take none
 */
public record LimitsDescriptor(@Nullable Integer concurrency, @Nullable String rateLimit,
		Map<String, KeyLimitDescriptor> keyLimits, @Nullable FairnessDescriptor fairness) {

	/** A queue's limits as shown, with its fair keys' shares (asked of {@code flow}) when it is fair. */
	static @Nullable LimitsDescriptor shown(@Nullable QueueLimits limits, @Nullable FlowControl flow) {
		List<FairKeyShare> shares = (limits != null && limits.isFair() && flow != null)
				? flow.fairShares(limits.queue()) : List.of();
		return of(limits, shares);
	}

	static @Nullable LimitsDescriptor of(@Nullable QueueLimits limits, List<FairKeyShare> fairKeys) {
		if (limits == null || limits.isEmpty()) {
			return null;
		}
		Fairness fair = limits.fairness();
		FairnessDescriptor fairness = (fair != null)
				? new FairnessDescriptor(new TreeMap<>(fair.weights()), fairKeys) : null;
		Map<String, KeyLimitDescriptor> keyLimits = new TreeMap<>();
		limits.keyLimits()
			.forEach((keyLimit) -> keyLimits.put(keyLimit.keys(), new KeyLimitDescriptor(
					keyLimit.limit().concurrency(), rate(keyLimit.limit()))));
		Limit own = limits.limit();
		return new LimitsDescriptor((own != null) ? own.concurrency() : null, (own != null) ? rate(own) : null,
				keyLimits, fairness);
	}

	private static @Nullable String rate(Limit limit) {
		return (limit.rate() != null) ? limit.rate().toString() : null;
	}

}
