package io.sqlqueue.internal.store;

import org.jspecify.annotations.Nullable;

/**
 * What a database cannot store of a JSON text, found in the JVM before it reaches the
 * database: PostgreSQL's {@code jsonb} refuses the escape {@code \u0000}, and MariaDB's
 * {@code JSON_VALID} nesting deeper than 31 levels. Checked on every database alike, so a
 * job that enqueues on H2 in development enqueues on PostgreSQL in production.
 */
final class StorableJson {

	private StorableJson() {
	}

	/** Why the text cannot be stored, or {@code null} when it can. */
	static @Nullable String problem(String json, int maxDepth) {
		int depth = 0;
		boolean inString = false;
		for (int i = 0; i < json.length(); i++) {
			char c = json.charAt(i);
			if (inString) {
				if (c == '\\') {
					if (json.startsWith("u0000", i + 1)) {
						return "it contains a NUL character (\\u0000), which PostgreSQL cannot store in JSON";
					}
					i++;
				}
				else if (c == '"') {
					inString = false;
				}
				else if (c == 0) {
					return "it contains a NUL character (\\u0000), which PostgreSQL cannot store in JSON";
				}
			}
			else if (c == '"') {
				inString = true;
			}
			else if (c == '[' || c == '{') {
				depth++;
				if (depth > maxDepth) {
					return "it is nested deeper than " + maxDepth + " levels, the most this database stores";
				}
			}
			else if (c == ']' || c == '}') {
				depth--;
			}
		}
		return null;
	}

}
