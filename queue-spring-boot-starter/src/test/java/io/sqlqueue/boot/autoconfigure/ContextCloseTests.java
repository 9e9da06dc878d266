package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import io.sqlqueue.JobHandler;
import io.sqlqueue.JobQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application closed (SIGTERM, Ctrl-C) while a job outlasts
 * {@code sqlqueue.manager.shutdown-timeout}: the stop is no crash. The job is given back
 * before the pool closes, with no attempt spent and no crash counted, and the close logs what
 * it waits for and no stack trace.
 */
@ExtendWith(OutputCaptureExtension.class)
class ContextCloseTests {

	private final String url = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + this.url, "sqlqueue.manager.shutdown-timeout=300ms")
		.withBean("export", Export.class);

	@Test
	void aJobThatOutlastsTheShutdownTimeoutIsGivenBackAtCloseWithoutAStackTrace(CapturedOutput output) {
		this.runner.run((context) -> {
			context.getBean(JobQueue.class).enqueue("export.run", "all");
			assertThat(context.getBean(Export.class).started.await(30, TimeUnit.SECONDS)).isTrue();
			// The context closes as this returns.
		});
		Map<String, Object> job = new JdbcTemplate(new DriverManagerDataSource(this.url, "sa", ""))
			.queryForMap("SELECT status, attempts, crashes, last_error FROM queue_job");
		assertThat(job).containsEntry("STATUS", "QUEUED").containsEntry("ATTEMPTS", 0).containsEntry("CRASHES", 0);
		assertThat((String) job.get("LAST_ERROR")).startsWith("Stopped while running");
		String closing = output.getAll().substring(output.getAll().indexOf("stopping: 1 jobs running"));
		assertThat(closing).contains("waiting up to PT0.3S")
			.contains("given back: its instance stopped while it ran (InterruptedException)")
			.doesNotContain("\tat ")
			.doesNotContain("Exception:");
	}

	static class Export {

		final CountDownLatch started = new CountDownLatch(1);

		@JobHandler("export.run")
		void run(String what) throws InterruptedException {
			this.started.countDown();
			Thread.sleep(Duration.ofMinutes(1).toMillis());
		}

	}

}
