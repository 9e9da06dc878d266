package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobContext;
import io.sqlqueue.JobHandler;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobStatus;
import io.sqlqueue.boot.schedule.Recurring;
import io.sqlqueue.internal.maintenance.ScheduleFirer;
import io.sqlqueue.schedule.FiredTick;
import io.sqlqueue.schedule.MisfirePolicy;
import io.sqlqueue.schedule.OverlapPolicy;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleRecord;
import io.sqlqueue.schedule.ScheduleSource;
import io.sqlqueue.schedule.Schedules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RecurringJobsTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"sqlqueue.manager.poll-interval=50ms", "sqlqueue.manager.shutdown-timeout=1s");

	@Test
	void declaresAndFiresAnAnnotatedSchedule() {
		this.runner.withBean(Nightly.class).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(ScheduleFirer.class);
			Schedules schedules = context.getBean(Schedules.class);
			ScheduleRecord report = schedules.find("nightly-report").orElseThrow();
			assertThat(report.source()).isEqualTo(ScheduleSource.ANNOTATION);
			assertThat(report.definition().handler()).isEqualTo("report");
			assertThat(report.definition().payload()).isEqualTo("{\"kind\":\"daily\"}");
			assertThat(report.definition().recurrence()).isEqualTo(Recurrence.cron("0 0 2 * * *", "Europe/Berlin"));
			assertThat(report.definition().misfire()).isEqualTo(MisfirePolicy.SKIP);
			// Stored with the schedule, so an instance without the handler fires the same job.
			assertThat(report.definition().queue()).isEqualTo("reports");
			assertThat(report.definition().maxAttempts()).isEqualTo(4);
			new JdbcTemplate(context.getBean(DataSource.class)).update(
					"UPDATE queue_schedule SET next_run_at = DATEADD('MINUTE', -1, CURRENT_TIMESTAMP) WHERE name = ?",
					"nightly-report");
			List<FiredTick> fired = schedules.fireDue();
			assertThat(fired).singleElement().satisfies((tick) -> assertThat(tick.skipped()).isFalse());
			JobQueue jobs = context.getBean(JobQueue.class);
			long id = fired.get(0).jobId();
			assertThat(jobs.find(id).orElseThrow().queue()).isEqualTo("reports");
			assertThat(jobs.find(id).orElseThrow().maxAttempts()).isEqualTo(4);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> jobs.find(id).orElseThrow().status() == JobStatus.SUCCEEDED);
			assertThat(schedules.find("nightly-report").orElseThrow().lastJobId()).isEqualTo(id);
		});
	}

	@Test
	void firesAnIntervalScheduleOnItsOwn() {
		this.runner.withBean(Nightly.class).withPropertyValues("sqlqueue.maintenance.schedule-interval=200ms").run((context) -> {
			Schedules schedules = context.getBean(Schedules.class);
			ScheduleRecord tick = schedules.find("tick").orElseThrow();
			assertThat(tick.definition().recurrence().every()).isEqualTo(Duration.ofSeconds(1));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> schedules.find("tick").orElseThrow().lastJobStatus() == JobStatus.SUCCEEDED);
		});
	}

	@Test
	void declaresPropertySchedules() {
		this.runner.withBean(Nightly.class)
			.withPropertyValues("sqlqueue.schedules.cleanup.cron=0 */5 * * * *",
					"sqlqueue.schedules.cleanup.zone=Europe/Berlin", "sqlqueue.schedules.cleanup.handler=report",
					"sqlqueue.schedules.cleanup.payload={\"kind\":\"cleanup\"}",
					"sqlqueue.schedules.cleanup.queue=maintenance", "sqlqueue.schedules.cleanup.misfire=each",
					"sqlqueue.schedules.cleanup.overlap=allow", "sqlqueue.schedules.hourly.every=1h",
					"sqlqueue.schedules.hourly.handler=report", "sqlqueue.schedules.off.every=1h",
					"sqlqueue.schedules.off.handler=report", "sqlqueue.schedules.off.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Schedules schedules = context.getBean(Schedules.class);
				ScheduleRecord cleanup = schedules.find("cleanup").orElseThrow();
				assertThat(cleanup.source()).isEqualTo(ScheduleSource.PROPERTIES);
				assertThat(cleanup.definition().queue()).isEqualTo("maintenance");
				assertThat(cleanup.definition().payload()).isEqualTo("{\"kind\":\"cleanup\"}");
				assertThat(cleanup.definition().misfire()).isEqualTo(MisfirePolicy.EACH);
				assertThat(cleanup.definition().overlap()).isEqualTo(OverlapPolicy.ALLOW);
				assertThat(cleanup.definition().maxAttempts()).isEqualTo(4);
				assertThat(schedules.find("hourly").orElseThrow().definition().recurrence().every())
					.isEqualTo(Duration.ofHours(1));
				assertThat(schedules.find("hourly").orElseThrow().definition().queue()).isEqualTo("reports");
				assertThat(schedules.find("off")).isEmpty();
			});
	}

	@Test
	void declaresNothingWhereTheManagerDoesNotRun() {
		this.runner.withBean(Nightly.class).withPropertyValues("sqlqueue.manager.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(ScheduleFirer.class);
			assertThat(context.getBean(Schedules.class).list()).isEmpty();
		});
	}

	@Test
	void failsOnABadCron() {
		assertFails("sqlqueue.schedules.bad.cron=0 0 25 * * *", "Schedule 'bad' (sqlqueue.schedules.bad)",
				"Invalid cron expression '0 0 25 * * *'");
	}

	@Test
	void failsOnABadZone() {
		assertFails("sqlqueue.schedules.bad.cron=0 0 2 * * *", "Schedule 'bad'", "Unknown time zone 'Mars/Olympus'",
				"sqlqueue.schedules.bad.zone=Mars/Olympus");
	}

	@Test
	void failsOnBothCronAndEvery() {
		assertFails("sqlqueue.schedules.bad.cron=0 0 2 * * *", "Schedule 'bad'", "not both",
				"sqlqueue.schedules.bad.every=1h");
	}

	@Test
	void failsOnNeitherCronNorEvery() {
		assertFails("sqlqueue.schedules.bad.queue=q", "Schedule 'bad'", "not neither");
	}

	@Test
	void failsOnInvalidPayload() {
		assertFails("sqlqueue.schedules.bad.every=1h", "Schedule 'bad'", "payload is not valid JSON",
				"sqlqueue.schedules.bad.payload={oops");
	}

	@Test
	void failsOnAnUnknownHandler() {
		this.runner.withBean(Nightly.class)
			.withPropertyValues("sqlqueue.schedules.bad.every=1h", "sqlqueue.schedules.bad.handler=nobody")
			.run((context) -> assertThat(messages(context.getStartupFailure())).contains("Schedule 'bad'",
					"'nobody'"));
	}

	@Test
	void failsOnABadAnnotation() {
		this.runner.withBean(BadRecurring.class)
			.run((context) -> assertThat(messages(context.getStartupFailure())).contains("Schedule 'broken'",
					"Invalid cron expression"));
	}

	@Test
	void failsOnRecurringWithoutJobHandler() {
		this.runner.withBean(RecurringWithoutHandler.class)
			.run((context) -> assertThat(messages(context.getStartupFailure())).contains("@Recurring on",
					"orphan()", "needs @JobHandler"));
	}

	private void assertFails(String property, String naming, String problem, String... more) {
		this.runner.withBean(Nightly.class)
			.withPropertyValues(property, "sqlqueue.schedules.bad.handler=report")
			.withPropertyValues(more)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(messages(context.getStartupFailure())).contains(naming, problem);
			});
	}

	private static String messages(Throwable failure) {
		StringBuilder messages = new StringBuilder();
		for (Throwable each = failure; each != null; each = each.getCause()) {
			messages.append(each.getMessage()).append('\n');
		}
		return messages.toString();
	}

	static class Nightly {

		@JobHandler(value = "report", queue = "reports", maxAttempts = 4)
		@Recurring(name = "nightly-report", cron = "0 0 2 * * *", zone = "Europe/Berlin",
				payload = "{\"kind\":\"daily\"}", misfire = MisfirePolicy.SKIP)
		void report(ReportRequest request, JobContext context) {
			assertThat(context.scheduledFor()).isNotNull();
		}

		@JobHandler("tick")
		@Recurring(every = "1s")
		void tick() {
		}

	}

	record ReportRequest(String kind) {
	}

	static class RecurringWithoutHandler {

		@Recurring(every = "1h")
		void orphan() {
		}

	}

	static class BadRecurring {

		@JobHandler("broken")
		@Recurring(cron = "every night")
		void broken() {
		}

	}

}
