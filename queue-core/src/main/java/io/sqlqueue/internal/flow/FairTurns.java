package io.sqlqueue.internal.flow;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

import io.sqlqueue.flow.Fairness;

/**
 * The turns of a fair queue's keys in one claim: stride scheduling. Each key has a pass; the
 * key with the smallest pass (then the smallest key) goes next, and each start moves its
 * pass on by {@link #TURN} divided by its weight, so that over many turns a key of weight 3
 * starts three jobs for one of weight 1. A key has one pass across priorities (a claim may
 * serve several): a start at any priority moves it. The passes are the queue's, as stored: a key enters
 * the turns at the smallest pass there is ({@link FairClaim}), so that a key that had nothing
 * due saved up no turns, and a key that took more than its share before waits until the
 * others have caught up.
 * <p>
 * Keys are strings here; the jobs without a key are the key {@code ""} (a concurrency key
 * is never empty).
 */
final class FairTurns {

	/** How far one start moves the pass of a key of weight 1. */
	static final long TURN = 1_000_000;

	private static final Comparator<Map.Entry<String, Long>> NEXT = Map.Entry.<String, Long>comparingByValue()
		.thenComparing(Map.Entry.comparingByKey());

	private final Fairness fairness;

	private final Map<String, Long> pass = new HashMap<>();

	/** The keys that take turns in this claim now. */
	private final Set<String> active = new HashSet<>();

	private final Map<String, Integer> started = new LinkedHashMap<>();

	FairTurns(Fairness fairness) {
		this.fairness = fairness;
	}

	/** These keys, with their passes as stored, have jobs due: each takes turns from its pass. */
	void due(Map<String, Long> passes) {
		passes.forEach((key, at) -> {
			this.pass.putIfAbsent(key, at);
			this.active.add(key);
		});
	}

	/** This key takes no more turns in this claim (nothing more due, or a limit holds it). */
	void drop(String key) {
		this.active.remove(key);
	}

	boolean isEmpty() {
		return this.active.isEmpty();
	}

	/** The keys of the next {@code turns} turns, in order, without giving them: see {@link #start}. */
	List<String> plan(int turns) {
		PriorityQueue<Map.Entry<String, Long>> next = new PriorityQueue<>(NEXT);
		this.active.forEach((key) -> next.add(Map.entry(key, this.pass.get(key))));
		List<String> keys = new ArrayList<>(turns);
		while (keys.size() < turns && !next.isEmpty()) {
			Map.Entry<String, Long> turn = next.poll();
			keys.add(turn.getKey());
			next.add(Map.entry(turn.getKey(), turn.getValue() + stride(turn.getKey())));
		}
		return keys;
	}

	/** A job of this key started: its turn is given, its pass moves on. */
	void start(String key) {
		Long at = this.pass.get(key);
		if (at == null) {
			throw new IllegalStateException("Key '" + key + "' takes no turns in this claim");
		}
		this.pass.put(key, at + stride(key));
		this.started.merge(key, 1, Integer::sum);
	}

	/** A started job did not start after all (its row was held): its key's pass moves back. */
	void unstart(String key) {
		Integer count = this.started.get(key);
		if (count == null || count == 0) {
			throw new IllegalStateException("No start of key '" + key + "' to take back");
		}
		this.started.put(key, count - 1);
		this.pass.computeIfPresent(key, (k, at) -> at - stride(key));
	}

	/** The passes of the keys that started jobs, as they are now. */
	Map<String, Long> passesOfStarted() {
		Map<String, Long> passes = new LinkedHashMap<>();
		this.started.forEach((key, count) -> {
			if (count > 0) {
				passes.put(key, this.pass.get(key));
			}
		});
		return passes;
	}

	/** Starts per key in this claim. */
	Map<String, Integer> started() {
		return this.started;
	}

	private long stride(String key) {
		return TURN / this.fairness.weightOf(key.isEmpty() ? null : key);
	}

}
