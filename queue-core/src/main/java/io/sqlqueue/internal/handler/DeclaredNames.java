package io.sqlqueue.internal.handler;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Names declared as known elsewhere ({@code sqlqueue.remote-handlers}, {@code sqlqueue.remote-queues}):
 * exact names, or prefixes ending in {@code *} such as {@code billing.*}.
 */
final class DeclaredNames {

	private final Set<String> exact = new TreeSet<>();

	private final List<String> prefixes = new ArrayList<>();

	DeclaredNames(Collection<String> declared) {
		for (String name : declared) {
			if (name.endsWith("*")) {
				this.prefixes.add(name.substring(0, name.length() - 1));
			}
			else {
				this.exact.add(name);
			}
		}
	}

	boolean contains(String name) {
		return this.exact.contains(name) || this.prefixes.stream().anyMatch(name::startsWith);
	}

	/** The exact names: a prefix names no one to suggest. */
	Set<String> exact() {
		return this.exact;
	}

}
