package io.sqlqueue.internal.handler;

import java.util.Collection;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The "did you mean" of a name nobody knows: the known name nearest to it, if it is near
 * enough to be a typo of it rather than another name.
 */
final class NameSuggestions {

	/** Most edits (insert, delete, replace) between a name and a known name that is suggested for it. */
	static final int MAX_SUGGESTION_DISTANCE = 2;

	private NameSuggestions() {
	}

	/**
	 * The candidate nearest to {@code name}, at most {@link #MAX_SUGGESTION_DISTANCE} edits
	 * away and nearer than the name is long; the first in order among equally near ones.
	 */
	static Optional<String> closest(String name, Collection<String> candidates) {
		String best = null;
		int bestDistance = Integer.MAX_VALUE;
		for (String candidate : new TreeSet<>(candidates)) {
			int distance = distance(name, candidate);
			if (distance < bestDistance) {
				best = candidate;
				bestDistance = distance;
			}
		}
		boolean near = bestDistance <= MAX_SUGGESTION_DISTANCE && bestDistance < name.length();
		return near ? Optional.of(best) : Optional.empty();
	}

	/** The Levenshtein distance: the fewest single-character inserts, deletes and replacements from a to b. */
	static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int replace = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(replace, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

}
