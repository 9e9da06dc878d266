package io.sqlqueue.dashboard.autoconfigure;

import java.io.InputStream;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The metadata the configuration processor generates from
 * {@link SqlQueueDashboardProperties}, for IDE completion.
 */
class ConfigurationMetadataTests {

	@Test
	void describesEveryDashboardPropertyWithItsDefault() throws Exception {
		JsonNode metadata;
		try (InputStream in = getClass().getClassLoader()
			.getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
			assertThat(in).isNotNull();
			metadata = JsonMapper.builder().build().readTree(in);
		}
		int dashboard = 0;
		for (JsonNode property : metadata.get("properties")) {
			String name = property.get("name").asString();
			if (!name.startsWith("sqlqueue.dashboard.")) {
				continue;
			}
			dashboard++;
			assertThat(property.path("description").asString()).as(name)
				.isNotBlank()
				.doesNotStartWith("The ")
				.doesNotStartWith("A ");
			if (property.get("type").asString().equals("java.lang.Boolean")) {
				assertThat(property.get("description").asString()).as(name).startsWith("Whether");
			}
			switch (name) {
				case "sqlqueue.dashboard.path" -> assertThat(property.get("defaultValue").asString()).isEqualTo("/sqlqueue");
				case "sqlqueue.dashboard.actions-enabled" -> assertThat(property.get("defaultValue").asBoolean()).isFalse();
				case "sqlqueue.dashboard.enabled" -> assertThat(property.get("defaultValue").asBoolean()).isTrue();
				case "sqlqueue.dashboard.refresh-interval" ->
					assertThat(property.get("defaultValue").asString()).isEqualTo("5s");
				case "sqlqueue.dashboard.page-size" -> assertThat(property.get("defaultValue").asInt()).isEqualTo(50);
				case "sqlqueue.dashboard.allowed-hosts" -> assertThat(property.get("description").asString())
					.contains("localhost, 127.0.0.0/8, [::1]", "'*'", "DNS rebinding", "Spring Security");
				default -> throw new AssertionError("A property this test does not know: " + name);
			}
		}
		assertThat(dashboard).isEqualTo(6);
	}

}
