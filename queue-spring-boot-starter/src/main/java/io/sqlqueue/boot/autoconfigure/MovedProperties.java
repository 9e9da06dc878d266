package io.sqlqueue.boot.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.Environment;

/**
 * The property names that moved when sqlqueue's properties were grouped the way Spring
 * Boot groups its own (before the first release), and the check that fails start-up while
 * one of them is still set, naming its replacement: Spring Boot ignores a property that nothing binds,
 * so a setting under its old name would otherwise silently keep its default.
 * <p>
 * Chosen over deprecated aliases ({@code @DeprecatedConfigurationProperty}): nothing was
 * released, so no old name has to keep working for a round; an alias for each moved name
 * would double the properties classes and leave two working names for one setting. The
 * configuration metadata ({@code additional-spring-configuration-metadata.json}) lists the
 * same names as deprecated with level {@code error} and their replacements, so IDEs and
 * Spring Boot's properties migrator point to the new names as well (where the migrator
 * copies an old name's value to its new name, start-up goes on); a test keeps both lists
 * equal. Drop both once no user can have the old names left.
 */
final class MovedProperties implements BeanFactoryPostProcessor {

	/** Each moved name, relaxed forms included ({@code SQLQUEUE_POLLINTERVAL}), and its replacement. */
	static final Map<String, String> MOVED;

	static {
		Map<String, String> moved = new LinkedHashMap<>();
		moved.put("sqlqueue.schema", "sqlqueue.jdbc.schema");
		moved.put("sqlqueue.migrate", "sqlqueue.jdbc.migrate");
		moved.put("sqlqueue.dialect", "sqlqueue.jdbc.dialect");
		moved.put("sqlqueue.claim-method", "sqlqueue.jdbc.claim-method");
		moved.put("sqlqueue.notify", "sqlqueue.jdbc.notify");
		moved.put("sqlqueue.worker-id", "sqlqueue.manager.worker-id");
		moved.put("sqlqueue.concurrency", "sqlqueue.manager.concurrency");
		moved.put("sqlqueue.poll-interval", "sqlqueue.manager.poll-interval");
		moved.put("sqlqueue.batch-size", "sqlqueue.manager.batch-size");
		moved.put("sqlqueue.prefetch", "sqlqueue.manager.prefetch");
		moved.put("sqlqueue.lease-duration", "sqlqueue.manager.lease-duration");
		moved.put("sqlqueue.heartbeat-interval", "sqlqueue.manager.heartbeat-interval");
		moved.put("sqlqueue.handler-timeout", "sqlqueue.manager.handler-timeout");
		moved.put("sqlqueue.shutdown-timeout", "sqlqueue.manager.shutdown-timeout");
		moved.put("sqlqueue.result-max-size", "sqlqueue.manager.result-max-size");
		moved.put("sqlqueue.completion.linger", "sqlqueue.manager.completion.linger");
		moved.put("sqlqueue.completion.batch-size", "sqlqueue.manager.completion.batch-size");
		moved.put("sqlqueue.reaper-interval", "sqlqueue.maintenance.reaper-interval");
		moved.put("sqlqueue.retention.interval", "sqlqueue.maintenance.pruner-interval");
		moved.put("sqlqueue.vacuum-interval", "sqlqueue.maintenance.vacuum-interval");
		moved.put("sqlqueue.stats-interval", "sqlqueue.maintenance.stats-interval");
		moved.put("sqlqueue.schedule-interval", "sqlqueue.maintenance.schedule-interval");
		moved.put("sqlqueue.endpoint.show-payload", "management.endpoint.sqlqueue.show-payload");
		moved.put("sqlqueue.health.max-due-age", "management.health.sqlqueue.max-due-age");
		moved.put("sqlqueue.health.stale-status", "management.health.sqlqueue.stale-status");
		MOVED = Map.copyOf(moved);
	}

	private final Environment environment;

	MovedProperties(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		check(this.environment);
	}

	/**
	 * Fails when the environment sets a moved name, in any of its relaxed forms, unless the
	 * new name has the same value (as Spring Boot's properties migrator sets it): then
	 * nothing is lost.
	 * @param environment the application's environment
	 * @throws IllegalStateException naming each moved name that is set, where it is set,
	 * and its replacement
	 */
	static void check(Environment environment) {
		Iterable<ConfigurationPropertySource> sources = ConfigurationPropertySources.get(environment);
		List<String> found = new ArrayList<>();
		MOVED.entrySet()
			.stream()
			.sorted(Map.Entry.comparingByKey())
			.forEach((moved) -> {
				ConfigurationPropertyName name = ConfigurationPropertyName.of(moved.getKey());
				for (ConfigurationPropertySource source : sources) {
					ConfigurationProperty property = source.getConfigurationProperty(name);
					if (property != null) {
						if (isAlsoSetUnderItsNewName(environment, property, moved.getValue())) {
							break;
						}
						String origin = (property.getOrigin() != null) ? " (" + property.getOrigin() + ")" : "";
						found.add("'" + moved.getKey() + "'" + origin + " is now '" + moved.getValue() + "'");
						break;
					}
				}
			});
		if (!found.isEmpty()) {
			throw new IllegalStateException("sqlqueue's properties were grouped before its first release, and "
					+ "these names are no longer read (their settings would keep their defaults): "
					+ String.join("; ", found) + ". Rename them.");
		}
	}

	private static boolean isAlsoSetUnderItsNewName(Environment environment, ConfigurationProperty property,
			String replacement) {
		Object value = property.getValue();
		return value != null && String.valueOf(value).equals(environment.getProperty(replacement));
	}

}
