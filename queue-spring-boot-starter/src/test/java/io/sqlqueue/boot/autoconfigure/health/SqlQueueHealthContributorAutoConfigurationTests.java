package io.sqlqueue.boot.autoconfigure.health;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import io.sqlqueue.Job;
import io.sqlqueue.JobHandler;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.boot.actuate.endpoint.SqlQueueEndpoint;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.boot.autoconfigure.FixedTableHealth;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.boot.autoconfigure.endpoint.SqlQueueEndpointAutoConfiguration;
import io.sqlqueue.boot.health.SqlQueueHealthIndicator;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.internal.maintenance.QueueStats;
import io.sqlqueue.internal.maintenance.ScheduleFirer;
import io.sqlqueue.internal.maintenance.TableHealthMonitor;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleDefinition;
import io.sqlqueue.schedule.Schedules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class SqlQueueHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class, SqlQueueHealthContributorAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"sqlqueue.manager.poll-interval=50ms", "sqlqueue.manager.shutdown-timeout=1s");

	@Test
	void reportsAScheduleThatIsBehind() {
		this.runner.withPropertyValues("sqlqueue.maintenance.schedule-interval=1h").run((context) -> {
			Schedules schedules = context.getBean(Schedules.class);
			// No instance has the handler: the schedule names its jobs' settings, so this one fires it.
			schedules.create(ScheduleDefinition.of("minutely", "nobody", Recurrence.every(Duration.ofMinutes(1)))
				.withQueue("default")
				.withMaxAttempts(1));
			schedules.create(ScheduleDefinition.of("onTime", "nobody", Recurrence.every(Duration.ofMinutes(1))));
			schedules.create(ScheduleDefinition.of("held", "nobody", Recurrence.every(Duration.ofMinutes(1))));
			schedules.pause("held");
			context.getBean(ScheduleFirer.class).runOnce();
			new JdbcTemplate(context.getBean(DataSource.class))
				.update("UPDATE queue_schedule SET next_run_at = DATEADD('MINUTE', -5, CURRENT_TIMESTAMP) "
						+ "WHERE name IN ('minutely', 'held')");
			context.getBean(QueueStats.class).refresh();
			Health health = context.getBean(SqlQueueHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails().get("behindSchedules")).asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsOnlyKeys("minutely");
			assertThat(health.getDetails()).doesNotContainKey("stale");
			schedules.fireDue();
			context.getBean(QueueStats.class).refresh();
			Health after = context.getBean(SqlQueueHealthIndicator.class).health();
			assertThat(after.getStatus()).isEqualTo(Status.UP);
			assertThat(after.getDetails()).doesNotContainKey("behindSchedules");
		});
	}

	/**
	 * Issue 40: a schedule declared from the code that no live instance declares any more is
	 * orphaned and fires nowhere; health says so (the stale status, detail
	 * {@code orphanedSchedules} with its source) until it is deleted. A paused one, or one
	 * created through the API, is not reported.
	 */
	@Test
	void reportsAnOrphanedScheduleThatNoInstanceFires() {
		this.runner.withPropertyValues("sqlqueue.maintenance.schedule-interval=1h").run((context) -> {
			Schedules schedules = context.getBean(Schedules.class);
			Recurrence minutely = Recurrence.every(Duration.ofMinutes(1));
			schedules.create(ScheduleDefinition.of("v2-tick", "nobody", minutely));
			schedules.create(ScheduleDefinition.of("held", "nobody", minutely));
			schedules.create(ScheduleDefinition.of("runtime", "nobody", minutely));
			schedules.pause("held");
			// As a firing pass leaves a schedule whose declaring instances are all gone.
			new JdbcTemplate(context.getBean(DataSource.class))
				.update("UPDATE queue_schedule SET source = 'ANNOTATION', orphaned = TRUE WHERE name IN ('v2-tick', 'held')");
			QueueStats stats = context.getBean(QueueStats.class);
			SqlQueueHealthIndicator indicator = context.getBean(SqlQueueHealthIndicator.class);
			stats.refresh();
			Health health = indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails().get("orphanedSchedules")).asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsExactly(Map.entry("v2-tick", "ANNOTATION"));
			assertThat(schedules.delete("v2-tick")).isTrue();
			stats.refresh();
			Health after = indicator.health();
			assertThat(after.getStatus()).isEqualTo(Status.UP);
			assertThat(after.getDetails()).doesNotContainKey("orphanedSchedules");
		});
	}

	/**
	 * Right after a restart an overdue schedule is not behind yet: the firer has not had a
	 * pass on this instance. Once it has, a schedule it could not fire (this instance lacks
	 * its handler and the schedule names no queue) is.
	 */
	@Test
	void aScheduleCountsAsBehindOnlyAfterTheFirerHadAPass() {
		this.runner.withPropertyValues("sqlqueue.maintenance.schedule-interval=1h").run((context) -> {
			context.getBean(Schedules.class)
				.create(ScheduleDefinition.of("short", "elsewhere", Recurrence.every(Duration.ofSeconds(5))));
			new JdbcTemplate(context.getBean(DataSource.class))
				.update("UPDATE queue_schedule SET next_run_at = DATEADD('MINUTE', -5, CURRENT_TIMESTAMP)");
			QueueStats stats = context.getBean(QueueStats.class);
			SqlQueueHealthIndicator indicator = context.getBean(SqlQueueHealthIndicator.class);
			stats.refresh();
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			assertThat(indicator.health().getDetails()).doesNotContainKey("behindSchedules");
			context.getBean(ScheduleFirer.class).runOnce();
			stats.refresh();
			Health health = indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails().get("behindSchedules")).asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsOnlyKeys("short");
		});
	}

	/**
	 * A transaction open longer than the maximum horizon age while the queue's tables have dead
	 * rows turns health to the horizon status with the holder's pid, application and age; one
	 * younger, or with no dead rows to hold back, does not.
	 */
	@Test
	void warnsWhileATransactionHoldsTheQueuesDeadRowsBack() {
		this.runner.withPropertyValues("management.health.sqlqueue.max-horizon-age=1m")
			.withBean(FixedTableHealth.class)
			.run((context) -> {
				FixedTableHealth tables = (FixedTableHealth) context.getBean(TableHealthMonitor.class);
				SqlQueueHealthIndicator indicator = context.getBean(SqlQueueHealthIndicator.class);
				context.getBean(QueueStats.class).refresh();
				tables.set(FixedTableHealth.heldBack(500, Duration.ofMinutes(2)));
				Health health = indicator.health();
				assertThat(health.getStatus()).isEqualTo(new Status("WARN"));
				assertThat(health.getDetails().get("horizon")).asInstanceOf(InstanceOfAssertFactories.LIST)
					.singleElement()
					.isEqualTo(Map.of("kind", "transaction", "pid", 4242L, "application", "report-tool",
							"state", "idle in transaction", "age", "PT2M"));
				assertThat(health.getDetails().get("tables")).asInstanceOf(InstanceOfAssertFactories.MAP)
					.containsEntry("deadRows", 500L)
					.containsEntry("maxHorizonAge", "PT1M")
					.containsKeys("readAt", "oldestHolder");
				tables.set(FixedTableHealth.heldBack(500, Duration.ofSeconds(30)));
				assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
				tables.set(FixedTableHealth.heldBack(0, Duration.ofMinutes(2)));
				assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
				assertThat(indicator.health().getDetails()).doesNotContainKey("horizon");
			});
	}

	@Test
	void theHorizonStatusIsConfigurableAndYieldsToAStuckQueue() {
		this.runner
			.withPropertyValues("management.health.sqlqueue.horizon-status=OUT_OF_SERVICE",
					"management.health.sqlqueue.max-due-age=1s")
			.withBean(FixedTableHealth.class)
			.run((context) -> {
				FixedTableHealth tables = (FixedTableHealth) context.getBean(TableHealthMonitor.class);
				SqlQueueHealthIndicator indicator = context.getBean(SqlQueueHealthIndicator.class);
				tables.set(FixedTableHealth.heldBack(500, Duration.ofMinutes(6)));
				context.getBean(QueueStats.class).refresh();
				assertThat(indicator.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
				context.getBean(JobQueue.class)
					.enqueue(Job.of("nobody", null).runAt(Instant.now().minusSeconds(60)));
				context.getBean(QueueStats.class).refresh();
				assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
			});
	}

	/** On H2 the reading reports nothing to warn about, and its time shows. */
	@Test
	void showsWhenTheTablesWereLastRead() {
		this.runner.run((context) -> {
			context.getBean(QueueStats.class).refresh();
			context.getBean(TableHealthMonitor.class).refresh();
			Health health = context.getBean(SqlQueueHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails().get("tables")).asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsOnlyKeys("readAt", "maxHorizonAge")
				.containsEntry("maxHorizonAge", "PT5M");
			assertThat(context.getBean(QueueAdmin.class).tableHealth().notReported()).contains("dead rows");
		});
	}

	@Test
	void upWhenNoDueJobWaitsTooLong() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasBean("sqlqueueHealthIndicator");
			long queued = context.getBean(JobQueue.class).enqueue(Job.of("nobody", null).queue("mail"));
			context.getBean(JobQueue.class).enqueue(Job.of("nobody", null).queue("mail").after(queued));
			context.getBean(QueueStats.class).refresh();
			Health health = context.getBean(SqlQueueHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("manager", "idle")
				.containsEntry("maxDueAge", "PT5M")
				.containsKey("sampledAt")
				.doesNotContainKey("stale");
			assertThat(health.getDetails().get("queues")).asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsOnlyKeys("mail")
				.extractingByKey("mail")
				.asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsEntry("QUEUED", 1L)
				.containsEntry("WAITING", 1L)
				.containsEntry("FAILED", 0L)
				.containsKey("oldestDueAge");
		});
	}

	@Test
	void downWhenAQueueIsStuck() {
		this.runner.withPropertyValues("management.health.sqlqueue.max-due-age=1s").run((context) -> {
			context.getBean(JobQueue.class)
				.enqueue(Job.of("unknown.handler", null).queue("orphans").runAt(Instant.now().minusSeconds(30)));
			context.getBean(QueueStats.class).refresh();
			Health health = context.getBean(SqlQueueHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails().get("stale")).asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsOnlyKeys("orphans");
		});
	}

	/** Jobs a rate limit holds back wait by design: their queue is throttled, not stuck. */
	@Test
	void aQueueWhoseLimitsHoldJobsBackIsThrottledNotStuck() {
		this.runner.withPropertyValues("management.health.sqlqueue.max-due-age=1s").run((context) -> {
			context.getBean(FlowControl.class).setLimit("payments", Limit.rate(1, Duration.ofHours(1)));
			Instant overdue = Instant.now().minusSeconds(30);
			context.getBean(JobQueue.class)
				.enqueueAll(List.of(Job.of("charge", 1).queue("payments").runAt(overdue),
						Job.of("charge", 2).queue("payments").runAt(overdue),
						Job.of("charge", 3).queue("payments").runAt(overdue)));
			context.getBean(QueueStats.class).refresh();
			Health health = context.getBean(SqlQueueHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).doesNotContainKey("stale");
			assertThat(health.getDetails().get("throttled")).asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsOnlyKeys("payments")
				.containsEntry("payments", java.util.Map.of("queue-rate", 2L));
		});
	}

	/** A paused queue's jobs wait because an operator said so: it shows as paused, not stuck. */
	@Test
	void aPausedQueueIsPausedNotStuck() {
		this.runner.withPropertyValues("management.health.sqlqueue.max-due-age=1s").run((context) -> {
			context.getBean(JobQueue.class)
				.enqueue(Job.of("unknown.handler", null).queue("held").runAt(Instant.now().minusSeconds(30)));
			assertThat(context.getBean(QueueAdmin.class).pauseQueue("held").done()).isTrue();
			context.getBean(QueueStats.class).refresh();
			Health health = context.getBean(SqlQueueHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).doesNotContainKey("stale");
			assertThat(health.getDetails().get("paused")).asInstanceOf(InstanceOfAssertFactories.COLLECTION)
				.containsExactly("held");
			context.getBean(QueueAdmin.class).resumeQueue("held");
			context.getBean(QueueStats.class).refresh();
			health = context.getBean(SqlQueueHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).doesNotContainKey("paused");
		});
	}

	@Test
	void reportsTheConfiguredStatusWhenAQueueIsStuck() {
		this.runner.withPropertyValues("management.health.sqlqueue.max-due-age=1s",
				"management.health.sqlqueue.stale-status=STALE")
			.run((context) -> {
				context.getBean(JobQueue.class)
					.enqueue(Job.of("unknown.handler", null).runAt(Instant.now().minusSeconds(30)));
				context.getBean(QueueStats.class).refresh();
				assertThat(context.getBean(SqlQueueHealthIndicator.class).health().getStatus())
					.isEqualTo(new Status("STALE"));
			});
	}

	@Test
	void downWhenTheCountsCannotBeRead() {
		this.runner.run((context) -> {
			QueueStats stats = context.getBean(QueueStats.class);
			stats.refresh();
			new JdbcTemplate(context.getBean(DataSource.class)).execute("DROP TABLE queue_job");
			stats.refresh();
			Health health = context.getBean(SqlQueueHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsKey("error");
		});
	}

	/**
	 * A database that stops answering (a cut network: a connection is waited for, as the pool
	 * waits up to its timeout): health answers at once throughout, and reports DOWN once a read
	 * has waited longer than the maximum read time; UP again once the database answers.
	 */
	@Test
	void answersAtOnceAndReportsDownWhileTheDatabaseDoesNotAnswer() throws Exception {
		HangingDataSource database = new HangingDataSource(
				new org.springframework.jdbc.datasource.DriverManagerDataSource(
						"jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", ""));
		this.runner.withBean(DataSource.class, () -> database)
			.withPropertyValues("management.health.sqlqueue.max-read-time=300ms",
					"sqlqueue.maintenance.stats-interval=1h")
			.run((context) -> {
				QueueStats stats = context.getBean(QueueStats.class);
				SqlQueueHealthIndicator indicator = context.getBean(SqlQueueHealthIndicator.class);
				stats.refresh();
				assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
				database.hang();
				Thread read = new Thread(stats::refresh, "stats-read");
				read.start();
				try {
					await().atMost(Duration.ofSeconds(10)).until(() -> stats.readUnderWay().isPresent());
					await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
						long began = System.nanoTime();
						Health health = indicator.health();
						assertThat(Duration.ofNanos(System.nanoTime() - began)).as("answers without the database")
							.isLessThan(Duration.ofSeconds(1));
						assertThat(health.getStatus()).isEqualTo(Status.DOWN);
						assertThat(health.getDetails().get("unanswered")).asString()
							.contains("has waited", "for the database (longer than PT0.3S): it does not answer");
					});
				}
				finally {
					database.answer();
					read.join(10_000);
				}
				assertThat(stats.readUnderWay()).isEmpty();
				assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			});
	}

	/** A database whose connections, while it hangs, wait for it to answer again. */
	static final class HangingDataSource extends org.springframework.jdbc.datasource.DelegatingDataSource {

		private volatile java.util.concurrent.CountDownLatch answers = new java.util.concurrent.CountDownLatch(0);

		HangingDataSource(DataSource target) {
			super(target);
		}

		void hang() {
			this.answers = new java.util.concurrent.CountDownLatch(1);
		}

		void answer() {
			this.answers.countDown();
		}

		@Override
		public java.sql.Connection getConnection() throws java.sql.SQLException {
			try {
				this.answers.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new java.sql.SQLTransientConnectionException("interrupted while the database hangs", ex);
			}
			return super.getConnection();
		}

	}

	@Test
	void downWhenTheManagerHasStopped() {
		this.runner.withBean("work", Work.class).run((context) -> {
			Manager manager = context.getBean(Manager.class);
			QueueStats stats = context.getBean(QueueStats.class);
			stats.refresh();
			SqlQueueHealthIndicator indicator = context.getBean(SqlQueueHealthIndicator.class);
			assertThat(manager.isRunning()).isTrue();
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			assertThat(indicator.health().getDetails()).containsEntry("manager", "running");
			manager.stop();
			assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
			assertThat(indicator.health().getDetails()).containsEntry("manager", "stopped");
		});
	}

	@Test
	void unknownBeforeTheFirstCount() {
		this.runner.run((context) -> {
			QueueStats stats = context.getBean(QueueStats.class);
			stats.stop();
			QueueStats fresh = new QueueStats(context.getBean(JobStore.class),
					new ThreadPoolTaskScheduler(), Duration.ofMinutes(1));
			SqlQueueHealthIndicator indicator = new SqlQueueHealthIndicator(fresh, null, Duration.ofMinutes(5),
					Status.DOWN);
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UNKNOWN);
			assertThat(indicator.health().getDetails()).containsEntry("manager", "none");
		});
	}

	@Test
	void backsOffWhenDisabled() {
		this.runner.withPropertyValues("management.health.sqlqueue.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(QueueStats.class)
				.doesNotHaveBean(SqlQueueHealthIndicator.class));
	}

	@Test
	void backsOffWhereTheManagerDoesNotRun() {
		this.runner.withPropertyValues("sqlqueue.manager.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(QueueStats.class)
				.doesNotHaveBean(SqlQueueHealthIndicator.class));
	}

	@Test
	void backsOffWithoutActuatorAndTheQueueStillRunsJobs() {
		this.runner.withConfiguration(AutoConfigurations.of(SqlQueueEndpointAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(HealthIndicator.class, ConditionalOnAvailableEndpoint.class))
			.withPropertyValues("management.endpoints.web.exposure.include=*")
			.withBean("work", Work.class)
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean(SqlQueueHealthIndicator.class)
					.doesNotHaveBean(SqlQueueEndpoint.class)
					.hasSingleBean(QueueStats.class);
				JobQueue jobs = context.getBean(JobQueue.class);
				long id = jobs.enqueue("ok", null);
				await().atMost(Duration.ofSeconds(20))
					.until(() -> jobs.find(id).map(JobRecord::status).orElseThrow() == JobStatus.SUCCEEDED);
			});
	}

	static class Work {

		@JobHandler("ok")
		String ok() {
			return "done";
		}

	}

}
