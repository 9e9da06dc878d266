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

/** The start-up check of the connection pool against what the queue may hold at once ({@link PoolHeadroom}). */
@ExtendWith(OutputCaptureExtension.class)
class PoolHeadroomTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
		.withBean("mail", Mail.class);

	@Test
	void aDefaultPoolLeavesTheApplicationRoom(CapturedOutput output) {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(PoolHeadroom.class);
			// 3 for the loops of Boot's 10: the mail queue's 8 workers hold none while their handlers run.
			assertThat(output.getAll()).doesNotContain("sqlqueue may hold");
		});
	}

	@Test
	void aPoolTheQueueCanEmptyIsNamedWithWhatHoldsIt(CapturedOutput output) {
		this.runner.withBean("ledger", Ledger.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output.getAll()).containsOnlyOnce(
					"The connection pool has 10 connections and sqlqueue may hold 11 of them at once (3 for its "
							+ "loops, 8 for the workers of queues with transactional handlers [ledger]), which leaves "
							+ "the application 0: raise spring.datasource.hikari.maximum-pool-size above 11");
		});
	}

	@Test
	void onlyTransactionalQueuesCountTheirWorkers(CapturedOutput output) {
		this.runner.withBean("ledger", Ledger.class)
			.withPropertyValues("spring.datasource.hikari.maximum-pool-size=6", "sqlqueue.queues.ledger.concurrency=2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				// 3 for the loops and 2 for the ledger's workers of 6.
				assertThat(output.getAll()).doesNotContain("sqlqueue may hold");
			});
	}

	@Test
	void withoutAManagerNothingIsChecked(CapturedOutput output) {
		this.runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=3", "sqlqueue.manager.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(PoolHeadroom.class);
				assertThat(output.getAll()).doesNotContain("sqlqueue may hold");
			});
	}

	static class Ledger {

		@JobHandler(value = "ledger.post", queue = "ledger", transactional = true)
		void post(String entry) {
		}

	}

	static class Mail {

		@JobHandler(value = "mail.send", queue = "mail")
		void send(String address) {
		}

	}

}
