package io.sqlqueue.boot.autoconfigure;

import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.manager.ManagerSettings;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code sqlqueue.*} property the starter does not know: Spring Boot's binder ignores
 * it, as it does for every {@code @ConfigurationProperties} class, and the setting it was
 * meant to change keeps its default. The configuration metadata has no entry for it, so
 * IDEs flag it. (Names bind relaxed: {@code sqlqueue.manager.batchSize} and
 * {@code SQLQUEUE_MANAGER_BATCHSIZE} are {@code sqlqueue.manager.batch-size}, not unknown.) A known
 * property with a value of the wrong type fails start-up.
 */
class UnknownPropertyTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"sqlqueue.manager.shutdown-timeout=1s");

	private static final List<String> TYPOS = List.of("sqlqueue.manager.poll-intervall",
			"sqlqueue.manager.batch-sise",
			"sqlqueue.retry.max-attempt", "sqlqueue.no-such-property");

	@Test
	void ignoresAnUnknownPropertyAndKeepsTheDefault() {
		this.runner
			.withPropertyValues("sqlqueue.manager.poll-intervall=50ms", "sqlqueue.manager.batch-sise=5",
					"sqlqueue.retry.max-attempt=1",
					"sqlqueue.no-such-property=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ManagerSettings settings = context.getBean(Manager.class).settings();
				assertThat(settings.pollInterval()).isEqualTo(Duration.ofSeconds(1));
				assertThat(settings.batchSize()).isEqualTo(100);
				assertThat(settings.retryPolicy().maxAttempts()).isEqualTo(10);
			});
	}

	@Test
	void bindsAKnownPropertyWrittenInAnotherForm() {
		this.runner.withPropertyValues("sqlqueue.manager.batchSize=5", "sqlqueue.retry.max_attempts=3")
			.run((context) -> {
				ManagerSettings settings = context.getBean(Manager.class).settings();
				assertThat(settings.batchSize()).isEqualTo(5);
				assertThat(settings.retryPolicy().maxAttempts()).isEqualTo(3);
			});
	}

	@Test
	void metadataHasNoEntryForAnUnknownPropertySoIdesFlagIt() throws Exception {
		List<String> names = new ArrayList<>();
		try (InputStream input = UnknownPropertyTests.class.getClassLoader()
			.getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
			assertThat(input).isNotNull();
			for (JsonNode property : JsonMapper.builder().build().readTree(input).get("properties")) {
				names.add(property.get("name").asString());
			}
		}
		assertThat(names)
			.contains("sqlqueue.manager.poll-interval", "sqlqueue.manager.batch-size", "sqlqueue.retry.max-attempts")
			.doesNotContainAnyElementsOf(TYPOS);
	}

	@Test
	void failsOnAKnownPropertyWithAValueOfTheWrongType() {
		this.runner.withPropertyValues("sqlqueue.manager.batch-size=many")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("Failed to bind properties under 'sqlqueue.manager.batch-size' to int")
				.rootCause()
				.hasMessageContaining("\"many\""));
	}

}
