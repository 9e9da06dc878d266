package io.sqlqueue.boot.autoconfigure;

import java.util.UUID;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.InvalidJobException;
import io.sqlqueue.JobHandler;
import io.sqlqueue.JobQueue;
import io.sqlqueue.handler.UnknownHandlerPolicy;
import io.sqlqueue.internal.handler.UnknownHandlers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code sqlqueue.unknown-handlers} and {@code sqlqueue.remote-handlers}. */
@ExtendWith(OutputCaptureExtension.class)
class UnknownHandlersAutoConfigurationTests {

	private final ApplicationContextRunner withoutHandlers = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"sqlqueue.manager.enabled=false");

	private final ApplicationContextRunner runner = this.withoutHandlers.withBean("mail", Mail.class);

	@Test
	void warnsOncePerUnknownNameByDefaultAndEnqueues(CapturedOutput output) {
		this.runner.run((context) -> {
			assertThat(context.getBean(UnknownHandlers.class).policy()).isEqualTo(UnknownHandlerPolicy.WARN);
			JobQueue jobs = context.getBean(JobQueue.class);
			jobs.enqueue("mail.welcom", null);
			jobs.enqueue("mail.welcom", null);
			jobs.enqueue("mail.welcome", null);
			assertThat(jobCount(context.getBean(DataSource.class))).isEqualTo(3);
			assertThat(output.getAll()).containsOnlyOnce("no handler named 'mail.welcom'")
				.contains("Did you mean 'mail.welcome'?");
		});
	}

	@Test
	void failRefusesAnUnknownNameAndWritesNothing() {
		this.runner.withPropertyValues("sqlqueue.unknown-handlers=fail").run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			assertThatThrownBy(() -> jobs.enqueue("mail.welcom", null)).isInstanceOf(InvalidJobException.class)
				.hasMessageContaining("Did you mean 'mail.welcome'?");
			assertThat(jobCount(context.getBean(DataSource.class))).isZero();
		});
	}

	@Test
	void remoteHandlersAreExpected(CapturedOutput output) {
		this.runner.withPropertyValues("sqlqueue.unknown-handlers=fail", "sqlqueue.remote-handlers=billing.*,audit.log")
			.run((context) -> {
				JobQueue jobs = context.getBean(JobQueue.class);
				jobs.enqueue("billing.charge", null);
				jobs.enqueue("audit.log", null);
				assertThatThrownBy(() -> jobs.enqueue("audit.logs", null)).isInstanceOf(InvalidJobException.class)
					.hasMessageContaining("Did you mean 'audit.log'?");
				assertThat(jobCount(context.getBean(DataSource.class))).isEqualTo(2);
			});
	}

	@Test
	void ignoreSaysNothing(CapturedOutput output) {
		this.runner.withPropertyValues("sqlqueue.unknown-handlers=ignore").run((context) -> {
			context.getBean(JobQueue.class).enqueue("mail.welcom", null);
			assertThat(output.getAll()).doesNotContain("mail.welcom");
		});
	}

	/** A bean made before the handler's bean enqueues for it: not yet registered, not yet checked. */
	@Test
	void anEnqueueWhileBeansAreMadeIsNotCheckedYet() {
		this.withoutHandlers.withPropertyValues("sqlqueue.unknown-handlers=fail")
			.withBean("early", EarlyEnqueuer.class)
			.withBean("mail", Mail.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(jobCount(context.getBean(DataSource.class))).isOne();
			});
	}

	private static int jobCount(DataSource dataSource) {
		Integer count = new JdbcTemplate(dataSource).queryForObject("SELECT COUNT(*) FROM queue_job", Integer.class);
		return (count != null) ? count : -1;
	}

	static class Mail {

		@JobHandler(value = "mail.welcome", queue = "mail")
		void welcome() {
		}

	}

	static class EarlyEnqueuer implements InitializingBean {

		private final JobQueue jobs;

		EarlyEnqueuer(JobQueue jobs) {
			this.jobs = jobs;
		}

		@Override
		public void afterPropertiesSet() {
			this.jobs.enqueue("mail.welcome", null);
		}

	}

}
