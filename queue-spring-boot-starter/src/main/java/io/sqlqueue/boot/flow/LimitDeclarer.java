package io.sqlqueue.boot.flow;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.dao.DataAccessException;

import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.LimitDefinition;
import io.sqlqueue.flow.LimitSource;
import io.sqlqueue.flow.RateLimit;

/**
 * Declares the application's limits once every singleton (and so every handler) is ready
 * and the schema is migrated, before anything starts: those of the configuration
 * ({@link LimitSource#PROPERTIES}) and those of {@code @JobHandler(concurrencyPerKey, ratePerKey)}
 * ({@link LimitSource#ANNOTATION}), where the configuration wins for the same queue and keys.
 * A limit of a source that is no longer declared is removed, if its queue is one this
 * instance serves (see {@link FlowControl#declare}); limits set through the API stay unless
 * declared anew.
 */
public class LimitDeclarer implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(LimitDeclarer.class);

	private final FlowControl flowControl;

	private final List<LimitDefinition> properties;

	private final Supplier<List<LimitDefinition>> annotations;

	private final Supplier<Set<String>> served;

	/**
	 * @param served the queues this instance serves, known once every handler is registered
	 */
	public LimitDeclarer(FlowControl flowControl, List<LimitDefinition> properties,
			Supplier<List<LimitDefinition>> annotations, Supplier<Set<String>> served) {
		this.flowControl = flowControl;
		this.properties = properties;
		this.annotations = annotations;
		this.served = served;
	}

	@Override
	public void afterSingletonsInstantiated() {
		Set<List<String>> configured = this.properties.stream()
			.map((limit) -> List.of(limit.queue(), limit.keys()))
			.collect(Collectors.toSet());
		List<LimitDefinition> annotated = new ArrayList<>();
		for (LimitDefinition limit : this.annotations.get()) {
			if (configured.contains(List.of(limit.queue(), limit.keys()))) {
				logger.info("Limit of {} from @JobHandler gives way to the configuration's", limit);
			}
			else {
				annotated.add(limit);
			}
		}
		if (this.properties.isEmpty() && annotated.isEmpty()) {
			// Only former limits to remove: a database without the limit tables (the application
			// migrates the queue's schema itself) is no reason to stop start-up.
			try {
				declare(annotated);
			}
			catch (DataAccessException ex) {
				logger.warn("sqlqueue could not check for limits that the application no longer declares", ex);
			}
			return;
		}
		declare(annotated);
	}

	private void declare(List<LimitDefinition> annotated) {
		Set<String> served = this.served.get();
		this.flowControl.declare(LimitSource.PROPERTIES, this.properties, served);
		this.flowControl.declare(LimitSource.ANNOTATION, annotated, served);
	}

	/**
	 * A limit from its parts, checked.
	 * @param what names the setting, for the message
	 * @throws IllegalStateException naming it and the problem
	 */
	public static LimitDefinition definition(String what, String queue, String keys, @Nullable Integer concurrency,
			@Nullable String rateLimit) {
		try {
			RateLimit rate = (rateLimit != null && !rateLimit.isBlank()) ? RateLimit.parse(rateLimit) : null;
			return new LimitDefinition(queue, keys, new Limit(concurrency, rate));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(what + " is invalid: " + ex.getMessage(), ex);
		}
	}

}
