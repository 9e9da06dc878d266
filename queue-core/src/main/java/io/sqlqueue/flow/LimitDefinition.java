package io.sqlqueue.flow;

import io.sqlqueue.Names;

/**
 * A limit to declare: of queue {@code queue} as a whole when {@code keys} is empty, else of
 * each of its concurrency keys that the pattern {@code keys} matches (see {@link KeyLimit}).
 */
public record LimitDefinition(String queue, String keys, Limit limit) {

	public LimitDefinition {
		Names.requireQueue(queue);
		if (!keys.isEmpty()) {
			KeyLimit.requirePattern(keys);
		}
	}

	/** A limit of the queue as a whole. */
	public static LimitDefinition ofQueue(String queue, Limit limit) {
		return new LimitDefinition(queue, "", limit);
	}

	/** A limit of each key of the queue that {@code keys} matches. */
	public static LimitDefinition ofKeys(String queue, String keys, Limit limit) {
		return new LimitDefinition(queue, KeyLimit.requirePattern(keys), limit);
	}

	@Override
	public String toString() {
		return "queue '" + this.queue + "'" + (this.keys.isEmpty() ? "" : " keys '" + this.keys + "'") + ": "
				+ this.limit;
	}

}
