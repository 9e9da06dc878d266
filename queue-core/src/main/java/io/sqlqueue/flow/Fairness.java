package io.sqlqueue.flow;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * Fair turns in a queue (docs/flow-control.md#fair-turns): among its due jobs of equal
 * priority, the concurrency keys take turns, so that one key's flood never holds back the
 * others. Round-robin when {@code weights} is empty; otherwise a key gets starts in
 * proportion to the weight of its pattern (an exact key, or a prefix ending in {@code *}, as
 * for {@link KeyLimit}): a key of weight 3 starts three jobs for one of weight 1. Keys no
 * pattern matches, and the jobs without a key (which take their turns as one key), weigh 1.
 * A key with nothing due takes no turn and saves none up. Priorities win across levels, and
 * a key has one place in the turns whatever the priority of its jobs: a start at any priority
 * moves it on, and having nothing due at one priority costs it no turn at another.
 */
public record Fairness(Map<String, Integer> weights) {

	/** The largest weight: with 1,000,000 per turn of weight 1, a turn of this weight still moves a key on. */
	public static final int MAX_WEIGHT = 1000;

	public Fairness {
		Map<String, Integer> checked = new LinkedHashMap<>();
		weights.forEach((pattern, weight) -> checked.put(KeyLimit.requirePattern(pattern), requireWeight(pattern, weight)));
		weights = Map.copyOf(checked);
	}

	/** Round-robin: every key weighs the same. */
	public static Fairness roundRobin() {
		return new Fairness(Map.of());
	}

	/**
	 * Fair turns as an operator or an annotation writes them: entries {@code pattern=weight},
	 * such as {@code gold:*=3}; none for round-robin.
	 * @throws IllegalArgumentException naming the entry and what is wrong with it
	 */
	public static Fairness parse(List<String> entries) {
		Fairness fairness = roundRobin();
		for (String entry : entries) {
			int equals = entry.lastIndexOf('=');
			String weight = (equals < 0) ? "" : entry.substring(equals + 1).trim();
			if (equals < 0) {
				throw new IllegalArgumentException("'" + entry + "' is not 'pattern=weight'");
			}
			if (!weight.matches("[0-9]{1,9}")) {
				throw new IllegalArgumentException(
						"'" + entry + "': the weight '" + weight + "' is not a whole number");
			}
			try {
				fairness = fairness.withWeight(entry.substring(0, equals).trim(), Integer.parseInt(weight));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("'" + entry + "': " + ex.getMessage(), ex);
			}
		}
		return fairness;
	}

	/** This fairness with keys matching {@code keys} weighing {@code weight}. */
	public Fairness withWeight(String keys, int weight) {
		Map<String, Integer> more = new LinkedHashMap<>(this.weights);
		more.put(keys, weight);
		return new Fairness(more);
	}

	/**
	 * The weight of a key: of its exact pattern, else of the longest matching prefix, else 1
	 * (and 1 for no key).
	 */
	public int weightOf(@Nullable String key) {
		if (key == null) {
			return 1;
		}
		Integer exact = this.weights.get(key);
		if (exact != null) {
			return exact;
		}
		String best = null;
		for (String pattern : this.weights.keySet()) {
			if (pattern.endsWith("*") && key.startsWith(pattern.substring(0, pattern.length() - 1))
					&& (best == null || pattern.length() > best.length())) {
				best = pattern;
			}
		}
		return (best != null) ? this.weights.get(best) : 1;
	}

	/**
	 * Checks a weight: 1 to {@link #MAX_WEIGHT}.
	 * @throws IllegalArgumentException saying what is wrong
	 */
	public static int requireWeight(String keys, @Nullable Integer weight) {
		if (weight == null || weight < 1 || weight > MAX_WEIGHT) {
			throw new IllegalArgumentException("The weight of keys '" + keys + "' must be a whole number from 1 to "
					+ MAX_WEIGHT + ", got " + weight);
		}
		return weight;
	}

	@Override
	public String toString() {
		return this.weights.isEmpty() ? "round-robin" : "weighted " + new TreeMap<>(this.weights);
	}

}
