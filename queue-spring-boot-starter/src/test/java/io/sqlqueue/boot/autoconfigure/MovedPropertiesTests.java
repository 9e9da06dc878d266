package io.sqlqueue.boot.autoconfigure;

import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import io.sqlqueue.JobQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A property set under a name it moved from (when the properties were grouped before the
 * first release) fails start-up with its new name, rather than being ignored and leaving
 * its setting at the default.
 */
class MovedPropertiesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"sqlqueue.manager.shutdown-timeout=1s");

	@Test
	void failsStartUpNamingTheNewName() {
		this.runner.withPropertyValues("sqlqueue.poll-interval=50ms")
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("'sqlqueue.poll-interval'")
				.hasMessageContaining("is now 'sqlqueue.manager.poll-interval'"));
	}

	@Test
	void namesEveryMovedNameThatIsSet() {
		this.runner
			.withPropertyValues("sqlqueue.schema=jobs", "sqlqueue.retention.interval=1m",
					"sqlqueue.health.max-due-age=1m", "sqlqueue.endpoint.show-payload=true")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("'sqlqueue.schema'")
				.hasMessageContaining("is now 'sqlqueue.jdbc.schema'")
				.hasMessageContaining("is now 'sqlqueue.maintenance.pruner-interval'")
				.hasMessageContaining("is now 'management.health.sqlqueue.max-due-age'")
				.hasMessageContaining("is now 'management.endpoint.sqlqueue.show-payload'"));
	}

	@Test
	void recognisesAMovedNameInItsRelaxedForms() {
		this.runner.withPropertyValues("sqlqueue.batchSize=5")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("is now 'sqlqueue.manager.batch-size'"));
		this.runner
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(new SystemEnvironmentPropertySource(
						StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
						Map.of("SQLQUEUE_COMPLETION_LINGER", "5ms"))))
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("is now 'sqlqueue.manager.completion.linger'"));
	}

	@Test
	void startsWithTheNewNames() {
		this.runner
			.withPropertyValues("sqlqueue.manager.poll-interval=50ms", "sqlqueue.jdbc.notify=false",
					"sqlqueue.maintenance.pruner-interval=1m", "sqlqueue.retention.failed=90d",
					"management.health.sqlqueue.max-due-age=1m")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(JobQueue.class));
	}

	@Test
	void startsWhenTheNewNameHasTheSameValueAsTheMigratorSetsIt() {
		this.runner.withPropertyValues("sqlqueue.poll-interval=50ms", "sqlqueue.manager.poll-interval=50ms")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(JobQueue.class));
		this.runner.withPropertyValues("sqlqueue.poll-interval=50ms", "sqlqueue.manager.poll-interval=60ms")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("is now 'sqlqueue.manager.poll-interval'"));
	}

}
