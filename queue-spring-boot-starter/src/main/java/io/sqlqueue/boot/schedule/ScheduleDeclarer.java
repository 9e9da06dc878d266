package io.sqlqueue.boot.schedule;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.dao.DataAccessException;

import io.sqlqueue.handler.Durations;
import io.sqlqueue.schedule.MisfirePolicy;
import io.sqlqueue.schedule.OverlapPolicy;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleDefinition;
import io.sqlqueue.schedule.ScheduleSource;
import io.sqlqueue.schedule.Schedules;

/**
 * Declares the application's schedules once every singleton (and so every handler) is
 * ready and the schema is migrated, before anything starts: those from the properties
 * ({@link ScheduleSource#PROPERTIES}) and those from {@link Recurring @Recurring}
 * ({@link ScheduleSource#ANNOTATION}). A schedule that cannot be declared stops start-up
 * with an {@link IllegalStateException} naming it and the problem.
 */
public class ScheduleDeclarer implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(ScheduleDeclarer.class);

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final Schedules schedules;

	private final List<ScheduleDefinition> properties;

	private final Supplier<List<ScheduleDefinition>> annotations;

	public ScheduleDeclarer(Schedules schedules, List<ScheduleDefinition> properties,
			Supplier<List<ScheduleDefinition>> annotations) {
		this.schedules = schedules;
		this.properties = properties;
		this.annotations = annotations;
	}

	@Override
	public void afterSingletonsInstantiated() {
		List<ScheduleDefinition> annotated = this.annotations.get();
		if (this.properties.isEmpty() && annotated.isEmpty()) {
			// Nothing to declare, only former schedules to orphan: a database without the
			// schedule table (the application migrates the queue's schema itself) is no reason
			// to stop start-up.
			try {
				declare(annotated);
			}
			catch (DataAccessException ex) {
				logger.warn("sqlqueue could not check for schedules that the application no longer declares", ex);
			}
			return;
		}
		declare(annotated);
	}

	private void declare(List<ScheduleDefinition> annotated) {
		this.schedules.declare(ScheduleSource.PROPERTIES, this.properties);
		this.schedules.declare(ScheduleSource.ANNOTATION, annotated);
	}

	/**
	 * A schedule from its parts, checked: exactly one of cron and every, a valid cron and
	 * zone, valid JSON.
	 * @throws IllegalStateException naming the schedule (as {@code what}) and the problem
	 */
	public static ScheduleDefinition definition(String what, String name, @Nullable String handler,
			@Nullable String queue, @Nullable String payload, @Nullable String cron, @Nullable String zone,
			@Nullable Duration every, MisfirePolicy misfire, OverlapPolicy overlap) {
		try {
			if (handler == null || handler.isBlank()) {
				throw new IllegalArgumentException("it names no handler");
			}
			String json = (payload != null && !payload.isBlank()) ? payload : "null";
			try {
				JSON.readTree(json);
			}
			catch (JacksonException ex) {
				throw new IllegalArgumentException("its payload is not valid JSON: " + ex.getOriginalMessage(), ex);
			}
			Recurrence recurrence = Recurrence.of((cron != null && !cron.isBlank()) ? cron : null, zone, every);
			return new ScheduleDefinition(name, handler, (queue != null && !queue.isBlank()) ? queue : null, json,
					recurrence, misfire, overlap);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(what + " is invalid: " + ex.getMessage(), ex);
		}
	}

	/** The schedule a {@link Recurring @Recurring} declares on the handler of that name. */
	public static ScheduleDefinition fromAnnotation(Recurring recurring, String handler, String method) {
		String name = recurring.name().isBlank() ? handler : recurring.name();
		Duration every;
		try {
			every = recurring.every().isBlank() ? null : Durations.parse(recurring.every());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("Schedule '" + name + "' (@Recurring on " + method
					+ ") is invalid: every '" + recurring.every() + "' is no duration", ex);
		}
		return definition("Schedule '" + name + "' (@Recurring on " + method + ")", name, handler, null,
				recurring.payload(), recurring.cron(), recurring.zone(), every, recurring.misfire(),
				recurring.overlap());
	}

}
