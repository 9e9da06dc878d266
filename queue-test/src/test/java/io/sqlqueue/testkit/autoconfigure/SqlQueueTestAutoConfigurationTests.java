package io.sqlqueue.testkit.autoconfigure;

import java.time.Duration;
import java.util.UUID;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.sqlqueue.JobHandler;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobStatus;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.boot.schedule.Recurring;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.maintenance.ScheduleFirer;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.schedule.Schedules;
import io.sqlqueue.testkit.SqlQueueTester;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

	/**
	 * The development application (the starter without the test kit, its Manager running) and
	 * tests on one database. A test's context started before it: the test kit refuses to reset
	 * or run jobs, naming the application's instance, and deletes none of its jobs. A test's
	 * context started beside it does not start, so it declares no schedule there (which the
	 * application would fire for a handler it does not have). Tests on another database are
	 * green meanwhile; once its Manager stopped, tests on its database work too.
	 */
	@Test
	void refusesToWorkBesideAnApplicationOnTheSameDatabase() {
		String database = "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
		ApplicationContextRunner devApplication = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, SqlQueueAutoConfiguration.class))
			.withPropertyValues(database, "sqlqueue.manager.worker-id=devbox-app",
					"sqlqueue.manager.poll-interval=50ms", "sqlqueue.manager.shutdown-timeout=1s")
			.withBean(Echo.class);
		this.runner.withPropertyValues(database).run((startedBefore) -> devApplication.run((dev) -> {
			JobQueue devJobs = dev.getBean(JobQueue.class);
			long history = devJobs.enqueue("echo", "the developer's job");
			assertThat(devJobs.await(history, Duration.ofSeconds(10)).status()).isEqualTo(JobStatus.SUCCEEDED);
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> !dev.getBean(QueueAdmin.class).instances().isEmpty());

			SqlQueueTester tester = startedBefore.getBean(SqlQueueTester.class);
			assertThatThrownBy(tester::reset).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("Refusing to reset the queue: this database has a live instance that is "
						+ "not a test")
				.hasMessageContaining("devbox-app on host ")
				.hasMessageContaining(", pid " + ProcessHandle.current().pid() + ", last beat ")
				.hasMessageContaining("@ServiceConnection")
				.hasMessageContaining("application-test.properties, with @ActiveProfiles(\"test\")")
				.hasMessageContaining("docs/testing.md");
			assertThat(devJobs.find(history)).as("the developer's history stays").isPresent();
			assertThatThrownBy(tester::runDue).isInstanceOf(IllegalStateException.class)
				.hasMessageStartingWith("Refusing to run jobs");
			assertThatThrownBy(() -> tester.run(history)).isInstanceOf(IllegalStateException.class);
			assertThatThrownBy(tester::runUntilSettled).isInstanceOf(IllegalStateException.class);

			this.runner.withPropertyValues(database).withBean(Beat.class).run((besideIt) -> {
				assertThat(besideIt).hasFailed();
				assertThat(besideIt).getFailure()
					.rootCause()
					.isInstanceOf(IllegalStateException.class)
					.hasMessageStartingWith("Refusing to start the test's application context: this database has a "
							+ "live instance that is not a test")
					.hasMessageContaining("devbox-app on host ");
			});
			assertThat(dev.getBean(Schedules.class).list()).as("no schedule of the refused test declared")
				.isEmpty();

			this.runner.withBean(Beat.class).run((elsewhere) -> {
				assertThat(elsewhere).hasNotFailed();
				SqlQueueTester other = elsewhere.getBean(SqlQueueTester.class);
				other.reset();
				assertThat(other.runSchedule("beat").result(String.class)).isEqualTo("beat");
				long id = elsewhere.getBean(JobQueue.class).enqueue("echo", "hi");
				assertThat(other.run(id).result(String.class)).isEqualTo("hi");
			});

			// Its Manager stops, and deletes its row as it does: the tests may work.
			dev.getBean(Manager.class).stop();
			this.runner.withPropertyValues(database).run((after) -> {
				SqlQueueTester test = after.getBean(SqlQueueTester.class);
				test.reset();
				long id = after.getBean(JobQueue.class).enqueue("echo", "hi");
				assertThat(test.run(id).result(String.class)).isEqualTo("hi");
			});
		}));
	}

	/** A test whose Manager runs in the background says so in its row: other tests on the database work beside it. */
	@Test
	void aTestsBackgroundManagerIsKnownAsATest() {
		String database = "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
		this.runner.withPropertyValues(database, "sqlqueue.test.run-in-background=true",
				"sqlqueue.manager.worker-id=end-to-end")
			.run((background) -> {
				assertThat(background.getBean(Manager.class).settings().workerId())
					.isEqualTo("end-to-end" + SqlQueueTester.TEST_INSTANCE_SUFFIX);
				Awaitility.await()
					.atMost(Duration.ofSeconds(10))
					.until(() -> !background.getBean(QueueAdmin.class).instances().isEmpty());
				this.runner.withPropertyValues(database).run((test) -> {
					SqlQueueTester tester = test.getBean(SqlQueueTester.class);
					tester.reset();
					assertThat(tester.runDue()).isEmpty();
				});
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

	static class Beat {

		@JobHandler("beat")
		@Recurring(every = "1s")
		String beat() {
			return "beat";
		}

	}

	static class Echo {

		@JobHandler("echo")
		String echo(String text) {
			return text;
		}

	}

}
