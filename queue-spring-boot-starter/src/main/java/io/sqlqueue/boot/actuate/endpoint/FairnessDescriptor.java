package io.sqlqueue.boot.actuate.endpoint;

import java.util.List;
import java.util.Map;

import io.sqlqueue.flow.FairKeyShare;
import io.sqlqueue.flow.FlowControl;

/**
 * A queue's fair turns (docs/flow-control.md#fair-turns).
 * @param weights the weights by key pattern; keys none matches weigh 1 (empty: round-robin)
 * @param keys the keys with the most jobs due, each with its share of starts in about the
 * last minute ({@link FlowControl#fairShares}); a key {@code null} is the jobs without one
 */
public record FairnessDescriptor(Map<String, Integer> weights, List<FairKeyShare> keys) {
}
