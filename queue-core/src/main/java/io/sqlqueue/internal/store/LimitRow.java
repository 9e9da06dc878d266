package io.sqlqueue.internal.store;

import io.sqlqueue.flow.Limit;

/**
 * One stored limit: of the queue as a whole when {@code keyPattern} is empty, else of each
 * concurrency key the pattern matches; {@code source} says who set it (properties, a
 * handler's annotation, or the API), {@code version} is the queue's limits' version.
 */
public record LimitRow(String queue, String keyPattern, Limit limit, String source, long version) {

	/** The key pattern of a queue's own limit. */
	public static final String QUEUE = "";

}
