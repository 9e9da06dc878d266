package io.sqlqueue.internal.handler;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import io.sqlqueue.handler.HandlerDefinition;

/**
 * The handlers this application has, by name. A name may be registered once: a second
 * registration fails with a message naming both.
 */
public class HandlerRegistry {

	private final Map<String, HandlerDefinition> handlers = new LinkedHashMap<>();

	public synchronized void register(HandlerDefinition handler) {
		HandlerDefinition existing = this.handlers.putIfAbsent(handler.name(), handler);
		if (existing != null) {
			throw new IllegalStateException("Two handlers are named '" + handler.name() + "': "
					+ existing.description() + " and " + handler.description());
		}
	}

	public synchronized Optional<HandlerDefinition> find(String name) {
		return Optional.ofNullable(this.handlers.get(name));
	}

	public synchronized List<HandlerDefinition> all() {
		return new ArrayList<>(this.handlers.values());
	}

	public synchronized List<String> names() {
		return new ArrayList<>(this.handlers.keySet());
	}

	/** The queues the handlers name as their default. */
	public synchronized Set<String> queues() {
		Set<String> queues = new TreeSet<>();
		this.handlers.values().forEach((handler) -> queues.add(handler.queue()));
		return queues;
	}

	public synchronized boolean isEmpty() {
		return this.handlers.isEmpty();
	}

}
