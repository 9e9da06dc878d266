package io.sqlqueue.boot.autoconfigure;

import java.io.InputStream;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import io.sqlqueue.internal.manager.ManagerSettings;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The metadata the configuration processor generates from {@link SqlQueueProperties}, for
 * IDE completion.
 */
class ConfigurationMetadataTests {

	@Test
	void describesEveryPropertyWithItsDefault() throws Exception {
		JsonNode metadata = read("META-INF/spring-configuration-metadata.json");
		JsonNode pollInterval = property(metadata, "sqlqueue.poll-interval");
		assertThat(pollInterval.get("type").asString()).isEqualTo("java.time.Duration");
		assertThat(pollInterval.get("description").asString())
			.isEqualTo("Longest wait between claims when the queues are empty.");
		assertThat(pollInterval.get("defaultValue").asString()).isEqualTo("1s");
		assertThat(property(metadata, "sqlqueue.payload-max-size").get("defaultValue").asString()).isEqualTo("1MB");
		assertThat(property(metadata, "sqlqueue.result-max-size").get("defaultValue").asString()).isEqualTo("1MB");
		String largest = String.valueOf(ManagerSettings.MAX_BATCH_SIZE);
		assertThat(property(metadata, "sqlqueue.batch-size").get("description").asString()).contains("1 to " + largest);
		assertThat(property(metadata, "sqlqueue.prefetch").get("description").asString()).contains("at most " + largest);
		assertThat(property(metadata, "sqlqueue.manager.enabled").get("defaultValue").asBoolean()).isTrue();
		assertThat(property(metadata, "sqlqueue.observations.enabled").get("defaultValue").asBoolean()).isTrue();
		assertThat(property(metadata, "sqlqueue.retry.max-attempts").get("defaultValue").asInt()).isEqualTo(10);
		assertThat(property(metadata, "sqlqueue.stats-interval").get("defaultValue").asString()).isEqualTo("30s");
		assertThat(property(metadata, "sqlqueue.retention.succeeded").get("defaultValue").asString()).isEqualTo("7d");
		assertThat(property(metadata, "sqlqueue.retention.failed").get("defaultValue").asString()).isEqualTo("30d");
		assertThat(property(metadata, "sqlqueue.health.max-due-age").get("defaultValue").asString()).isEqualTo("5m");
		assertThat(property(metadata, "sqlqueue.health.stale-status").get("defaultValue").asString()).isEqualTo("DOWN");
		assertThat(property(metadata, "sqlqueue.endpoint.show-payload").get("defaultValue").asBoolean()).isFalse();
		assertThat(property(metadata, "sqlqueue.schedule-interval").get("defaultValue").asString()).isEqualTo("1s");
		assertThat(property(metadata, "sqlqueue.unknown-handlers").get("defaultValue").asString()).isEqualTo("warn");
		assertThat(property(metadata, "sqlqueue.unknown-handlers").get("description").asString())
			.contains("Warn by default");
		assertThat(property(metadata, "sqlqueue.schedules").get("description").asString())
			.startsWith("Recurring jobs declared in the configuration");
		// The per-queue settings sit in a map, so their names reach IDEs only through its description.
		assertThat(property(metadata, "sqlqueue.queues").get("description").asString())
			.contains("'concurrency'", "'global-concurrency'", "'rate-limit'", "'key-limits'", "'keys'");
		for (JsonNode property : metadata.get("properties")) {
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
	void hintsTheDialects() throws Exception {
		JsonNode metadata = read("META-INF/spring-configuration-metadata.json");
		JsonNode dialect = null;
		for (JsonNode hint : metadata.get("hints")) {
			if (hint.get("name").asString().equals("sqlqueue.dialect")) {
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
