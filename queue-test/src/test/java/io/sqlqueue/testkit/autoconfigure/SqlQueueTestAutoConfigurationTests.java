package io.sqlqueue.testkit.autoconfigure;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.sqlqueue.JobHandler;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobStatus;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.maintenance.ScheduleFirer;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.testkit.SqlQueueTester;

import static org.assertj.core.api.Assertions.assertThat;

class SqlQueueTestAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class,
				SqlQueueAutoConfiguration.class, SqlQueueTestAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"sqlqueue.manager.poll-interval=50ms", "sqlqueue.manager.shutdown-timeout=1s")
		.withBean(Echo.class);

	@Test
	void keepsTheManagerFromStartingAndProvidesTheTester() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(SqlQueueTester.class).hasSingleBean(Manager.class);
			assertThat(context.getBean(Manager.class).isRunning()).isFalse();
			assertThat(context.getBean(ScheduleFirer.class).isRunning()).as("no schedule fires by itself").isFalse();
			assertThat(context.getBean(Reaper.class).isRunning()).as("the rest of the queue runs as usual").isTrue();
			JobQueue queue = context.getBean(JobQueue.class);
			long id = queue.enqueue("echo", "hi");
			Thread.sleep(200);
			assertThat(queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
			assertThat(context.getBean(SqlQueueTester.class).run(id).result(String.class)).isEqualTo("hi");
		});
	}

	@Test
	void letsTheManagerRunJobsInTheBackgroundWhenAsked() {
		this.runner.withPropertyValues("sqlqueue.test.run-in-background=true").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(SqlQueueTester.class);
			assertThat(context.getBean(Manager.class).isRunning()).isTrue();
			assertThat(context.getBean(ScheduleFirer.class).isRunning()).isTrue();
			JobQueue queue = context.getBean(JobQueue.class);
			assertThat(queue.await(queue.enqueue("echo", "hi"), Duration.ofSeconds(10)).status())
				.isEqualTo(JobStatus.SUCCEEDED);
		});
	}

	@Test
	void runsJobsWhereTheManagerIsDisabled() {
		this.runner.withPropertyValues("sqlqueue.manager.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(Manager.class).hasSingleBean(SqlQueueTester.class);
			JobQueue queue = context.getBean(JobQueue.class);
			queue.enqueue("echo", "hi");
			assertThat(context.getBean(SqlQueueTester.class).runDue()).singleElement()
				.satisfies((ran) -> assertThat(ran.result(String.class)).isEqualTo("hi"));
		});
	}

	@Test
	void backsOffWithTheQueue() {
		this.runner.withPropertyValues("sqlqueue.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(SqlQueueTester.class));
	}

	static class Echo {

		@JobHandler("echo")
		String echo(String text) {
			return text;
		}

	}

}
