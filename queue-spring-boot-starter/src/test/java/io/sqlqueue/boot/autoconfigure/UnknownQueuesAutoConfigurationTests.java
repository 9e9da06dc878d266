package io.sqlqueue.boot.autoconfigure;

import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.sqlqueue.JobHandler;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code sqlqueue.queues.<name>} for a queue no handler runs in, and {@code sqlqueue.remote-queues}. */
@ExtendWith(OutputCaptureExtension.class)
class UnknownQueuesAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"sqlqueue.manager.enabled=false")
		.withBean("imports", Imports.class);

	@Test
	void aMisspelledQueueIsWarnedAboutWithTheQueueMeant(CapturedOutput output) {
		this.runner.withPropertyValues("sqlqueue.queues.imprts.concurrency=2", "sqlqueue.queues.imprts.fair=true",
				"sqlqueue.queues.imports.global-concurrency=4")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output.getAll()).containsOnlyOnce("sqlqueue.queues.imprts configures the queue 'imprts'")
					.contains("Did you mean 'imports'?")
					.doesNotContain("queue 'imports'");
			});
	}

	@Test
	void failStopsStartUpOnAMisspelledQueue() {
		this.runner.withPropertyValues("sqlqueue.unknown-handlers=fail", "sqlqueue.queues.imprts.concurrency=2")
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("sqlqueue.queues.imprts")
				.hasMessageContaining("Did you mean 'imports'?"));
	}

	@Test
	void remoteQueuesAreExpected(CapturedOutput output) {
		this.runner
			.withPropertyValues("sqlqueue.unknown-handlers=fail", "sqlqueue.remote-queues=billing,partner.*",
					"sqlqueue.queues.billing.rate-limit=10/1s", "sqlqueue.queues[partner.acme].global-concurrency=2",
					"sqlqueue.queues.imports.concurrency=2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output.getAll()).doesNotContain("configures the queue");
			});
	}

	@Test
	void ignoreSaysNothing(CapturedOutput output) {
		this.runner.withPropertyValues("sqlqueue.unknown-handlers=ignore", "sqlqueue.queues.imprts.concurrency=2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output.getAll()).doesNotContain("imprts");
			});
	}

	static class Imports {

		@JobHandler(value = "import.file", queue = "imports")
		void importFile() {
		}

	}

}
