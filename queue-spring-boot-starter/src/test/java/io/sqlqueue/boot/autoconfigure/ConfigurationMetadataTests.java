package io.sqlqueue.boot.autoconfigure;

import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import io.sqlqueue.internal.manager.ManagerSettings;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The metadata the configuration processor generates from {@link SqlQueueProperties} and the
 * {@code management.*} properties of the endpoint and the health indicator, for IDE
 * completion.
 */
class ConfigurationMetadataTests {

	@Test
	void describesEveryPropertyWithItsDefault() throws Exception {
		JsonNode metadata = read("META-INF/spring-configuration-metadata.json");
		JsonNode pollInterval = property(metadata, "sqlqueue.manager.poll-interval");
		assertThat(pollInterval.get("type").asString()).isEqualTo("java.time.Duration");
		assertThat(pollInterval.get("description").asString())
			.isEqualTo("Longest wait between claims when the queues are empty.");
		assertThat(pollInterval.get("defaultValue").asString()).isEqualTo("1s");
		assertThat(property(metadata, "sqlqueue.payload-max-size").get("defaultValue").asString()).isEqualTo("1MB");
		assertThat(property(metadata, "sqlqueue.manager.result-max-size").get("defaultValue").asString())
			.isEqualTo("1MB");
		String largest = String.valueOf(ManagerSettings.MAX_BATCH_SIZE);
		assertThat(property(metadata, "sqlqueue.manager.batch-size").get("description").asString())
			.contains("1 to " + largest);
		assertThat(property(metadata, "sqlqueue.manager.prefetch").get("description").asString())
			.contains("at most " + largest);
		assertThat(property(metadata, "sqlqueue.manager.enabled").get("defaultValue").asBoolean()).isTrue();
		assertThat(property(metadata, "sqlqueue.observations.enabled").get("defaultValue").asBoolean()).isTrue();
		assertThat(property(metadata, "sqlqueue.retry.max-attempts").get("defaultValue").asInt()).isEqualTo(10);
		assertThat(property(metadata, "sqlqueue.maintenance.stats-interval").get("defaultValue").asString())
			.isEqualTo("30s");
		assertThat(property(metadata, "sqlqueue.retention.succeeded").get("defaultValue").asString()).isEqualTo("7d");
		assertThat(property(metadata, "sqlqueue.retention.failed").get("defaultValue").asString()).isEqualTo("30d");
		assertThat(property(metadata, "management.health.sqlqueue.max-due-age").get("defaultValue").asString())
			.isEqualTo("5m");
		assertThat(property(metadata, "management.health.sqlqueue.stale-status").get("defaultValue").asString())
			.isEqualTo("DOWN");
		assertThat(property(metadata, "management.endpoint.sqlqueue.show-payload").get("defaultValue").asBoolean())
			.isFalse();
		assertThat(property(metadata, "sqlqueue.maintenance.schedule-interval").get("defaultValue").asString())
			.isEqualTo("1s");
		assertThat(property(metadata, "sqlqueue.unknown-handlers").get("defaultValue").asString()).isEqualTo("warn");
		assertThat(property(metadata, "sqlqueue.unknown-handlers").get("description").asString())
			.contains("Warn by default");
		assertThat(property(metadata, "sqlqueue.schedules").get("description").asString())
			.startsWith("Recurring jobs declared in the configuration");
		// The per-queue settings sit in a map, so their names reach IDEs only through its description.
		assertThat(property(metadata, "sqlqueue.queues").get("description").asString())
			.contains("'concurrency'", "'global-concurrency'", "'rate-limit'", "'key-limits'", "'keys'");
		assertThat(property(metadata, "sqlqueue.manager.completion.linger").get("defaultValue").asString())
			.isEqualTo("2ms");
		assertThat(property(metadata, "sqlqueue.maintenance.pruner-interval").get("defaultValue").asString())
			.isEqualTo("10m");
		assertThat(property(metadata, "sqlqueue.maintenance.reaper-interval").get("defaultValue").asString())
			.isEqualTo("15s");
		assertThat(property(metadata, "sqlqueue.jdbc.migrate").get("defaultValue").asBoolean()).isTrue();
		assertThat(property(metadata, "sqlqueue.jdbc.notify").get("defaultValue").asBoolean()).isTrue();
		assertThat(property(metadata, "management.health.sqlqueue.enabled").get("defaultValue").asBoolean()).isTrue();
		for (JsonNode property : metadata.get("properties")) {
			if (property.has("deprecation")) {
				continue; // a moved name, checked by listsEveryMovedNameAsAnErrorWithItsReplacement
			}
			assertThat(property.path("description").asString()).as(property.get("name").asString())
				.isNotBlank()
				.doesNotStartWith("The ")
				.doesNotStartWith("A ");
			if (property.get("type").asString().equals("java.lang.Boolean")) {
				assertThat(property.get("description").asString()).startsWith("Whether");
			}
		}
	}

	@Test
	void listsEveryMovedNameAsAnErrorWithItsReplacement() throws Exception {
		JsonNode metadata = read("META-INF/spring-configuration-metadata.json");
		Map<String, String> deprecated = new HashMap<>();
		for (JsonNode property : metadata.get("properties")) {
			JsonNode deprecation = property.get("deprecation");
			if (deprecation != null) {
				assertThat(deprecation.get("level").asString()).as(property.get("name").asString()).isEqualTo("error");
				deprecated.put(property.get("name").asString(), deprecation.get("replacement").asString());
			}
		}
		assertThat(deprecated).isEqualTo(MovedProperties.MOVED);
		for (String replacement : deprecated.values()) {
			assertThat(property(metadata, replacement).has("deprecation")).as(replacement).isFalse();
		}
	}

	@Test
	void hintsTheDialects() throws Exception {
		JsonNode metadata = read("META-INF/spring-configuration-metadata.json");
		JsonNode dialect = null;
		for (JsonNode hint : metadata.get("hints")) {
			if (hint.get("name").asString().equals("sqlqueue.jdbc.dialect")) {
				dialect = hint;
			}
		}
		assertThat(dialect).isNotNull();
		assertThat(dialect.get("values").findValuesAsString("value")).containsExactly("postgresql", "mariadb", "h2", "sqlite");
	}

	private static JsonNode property(JsonNode metadata, String name) {
		for (JsonNode property : metadata.get("properties")) {
			if (property.get("name").asString().equals(name)) {
				return property;
			}
		}
		throw new AssertionError("No metadata for " + name);
	}

	private static JsonNode read(String resource) throws Exception {
		try (InputStream input = ConfigurationMetadataTests.class.getClassLoader().getResourceAsStream(resource)) {
			assertThat(input).as(resource).isNotNull();
			return JsonMapper.builder().build().readTree(input);
		}
	}

}
