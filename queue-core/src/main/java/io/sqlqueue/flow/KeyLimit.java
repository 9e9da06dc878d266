package io.sqlqueue.flow;

import io.sqlqueue.Names;

/**
 * A limit for each concurrency key that {@code keys} matches, counted per key: an exact key
 * ({@code stripe}), a prefix ending in {@code *} ({@code customer:*} matches
 * {@code customer:42} and {@code customer:43}, each with its own count), or {@code *} (every
 * key). A job's key takes the limit of its exact pattern if there is one, else of the longest
 * matching prefix.
 */
public record KeyLimit(String keys, Limit limit) {

	public KeyLimit {
		requirePattern(keys);
	}

	/**
	 * Checks a pattern: 1 to 255 characters, no NUL, and {@code *} only at the end.
	 * @throws IllegalArgumentException saying what is wrong
	 */
	public static String requirePattern(String keys) {
		if (keys.isEmpty() || keys.length() > Names.MAX_KEY_LENGTH || keys.indexOf('\0') >= 0) {
			throw new IllegalArgumentException("A key pattern must have 1 to " + Names.MAX_KEY_LENGTH
					+ " characters and no NUL, got '" + keys + "'");
		}
		int star = keys.indexOf('*');
		if (star >= 0 && star != keys.length() - 1) {
			throw new IllegalArgumentException("A key pattern may have '*' only at its end (a prefix, such as "
					+ "'customer:*'), got '" + keys + "'");
		}
		return keys;
	}

	/** Whether this is a prefix pattern. */
	public boolean isPrefix() {
		return this.keys.endsWith("*");
	}

	/** Whether the pattern matches the key. */
	public boolean matches(String key) {
		return isPrefix() ? key.startsWith(this.keys.substring(0, this.keys.length() - 1)) : key.equals(this.keys);
	}

}
