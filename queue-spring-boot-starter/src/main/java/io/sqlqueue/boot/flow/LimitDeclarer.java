package io.sqlqueue.boot.flow;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.dao.DataAccessException;

import io.sqlqueue.flow.Fairness;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.LimitDefinition;
import io.sqlqueue.flow.LimitSource;
import io.sqlqueue.flow.RateLimit;

/**
 * Declares the application's limits and fair turns once every singleton (and so every handler) is ready
 * and the schema is migrated, before anything starts: those of the configuration
 * ({@link LimitSource#PROPERTIES}) and those of {@code @JobHandler(concurrencyPerKey, ratePerKey)}
 * ({@link LimitSource#ANNOTATION}), where the configuration wins for the same queue and keys.
 * A limit of a source that is no longer declared is removed, if its queue is one this
 * instance serves and no live instance declares it any more (see {@link FlowControl#declare});
 * limits set through the API stay unless declared anew. The Manager's instance beat keeps
 * these declarations declared afterwards (docs/flow-control.md, "Versions").
 */
public class LimitDeclarer implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(LimitDeclarer.class);

	private final FlowControl flowControl;

	private final List<LimitDefinition> properties;

	private final Supplier<List<LimitDefinition>> annotations;

	private final Supplier<Set<String>> served;

	/** The fair turns of the configuration, by queue; {@code null}: configured unfair. */
	private Map<String, @Nullable Fairness> fairProperties = Map.of();

	private Supplier<Map<String, Fairness>> fairAnnotations = Map::of;

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

	/**
	 * This declarer, declaring fair turns too: of the configuration (by queue; {@code null}
	 * for a queue configured unfair, which no annotation makes fair) and of
	 * {@code @JobHandler(fair, fairWeights)}, where the configuration wins for the same queue.
	 */
	public LimitDeclarer withFairness(Map<String, @Nullable Fairness> properties,
			Supplier<Map<String, Fairness>> annotations) {
		this.fairProperties = properties;
		this.fairAnnotations = annotations;
		return this;
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
		Map<String, Fairness> fairConfigured = new LinkedHashMap<>();
		this.fairProperties.forEach((queue, fairness) -> {
			if (fairness != null) {
				fairConfigured.put(queue, fairness);
			}
		});
		Map<String, Fairness> fairAnnotated = new LinkedHashMap<>();
		this.fairAnnotations.get().forEach((queue, fairness) -> {
			if (this.fairProperties.containsKey(queue)) {
				logger.info("Fair turns of queue '{}' from @JobHandler give way to the configuration's", queue);
			}
			else {
				fairAnnotated.put(queue, fairness);
			}
		});
		if (this.properties.isEmpty() && annotated.isEmpty() && fairConfigured.isEmpty() && fairAnnotated.isEmpty()) {
			// Only former limits to remove: a database without the limit tables (the application
			// migrates the queue's schema itself) is no reason to stop start-up.
			try {
				declare(annotated, fairConfigured, fairAnnotated);
			}
			catch (DataAccessException ex) {
				logger.warn("sqlqueue could not check for limits that the application no longer declares", ex);
			}
			return;
		}
		declare(annotated, fairConfigured, fairAnnotated);
	}

	private void declare(List<LimitDefinition> annotated, Map<String, Fairness> fairConfigured,
			Map<String, Fairness> fairAnnotated) {
		Set<String> served = this.served.get();
		this.flowControl.declare(LimitSource.PROPERTIES, this.properties, served);
		this.flowControl.declare(LimitSource.ANNOTATION, annotated, served);
		this.flowControl.declareFairness(LimitSource.PROPERTIES, fairConfigured, served);
		this.flowControl.declareFairness(LimitSource.ANNOTATION, fairAnnotated, served);
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
