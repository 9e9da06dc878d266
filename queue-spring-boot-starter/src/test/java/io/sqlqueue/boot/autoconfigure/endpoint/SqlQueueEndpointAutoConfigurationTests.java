package io.sqlqueue.boot.autoconfigure.endpoint;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.sqlqueue.Job;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.boot.actuate.endpoint.SqlQueueEndpoint;
import io.sqlqueue.boot.actuate.endpoint.SqlQueueEndpoint.ActionDescriptor;
import io.sqlqueue.boot.actuate.endpoint.SqlQueueEndpoint.JobDescriptor;
import io.sqlqueue.boot.actuate.endpoint.SqlQueueEndpoint.QueuesDescriptor;
import io.sqlqueue.boot.actuate.endpoint.SqlQueueEndpoint.RetriedDescriptor;
import io.sqlqueue.boot.actuate.endpoint.SqlQueueEndpoint.ScheduleActionDescriptor;
import io.sqlqueue.boot.actuate.endpoint.SqlQueueEndpoint.ScheduleDescriptor;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleDefinition;
import io.sqlqueue.schedule.ScheduleSource;
import io.sqlqueue.schedule.Schedules;
import io.sqlqueue.store.ClaimRequest;
import io.sqlqueue.store.JobStore;
import io.sqlqueue.store.Lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The endpoint's operations called on the bean; the sample app calls them over HTTP. The
 * Manager is off, so jobs stay in the states the tests put them in.
 */
class SqlQueueEndpointAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class, SqlQueueEndpointAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"sqlqueue.manager.enabled=false", "management.endpoints.web.exposure.include=sqlqueue");

	@Test
	void isNotCreatedUnlessExposed() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					SqlQueueAutoConfiguration.class, SqlQueueEndpointAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(JobQueue.class)
				.doesNotHaveBean(SqlQueueEndpoint.class));
	}

	@Test
	void isNotCreatedWhenAccessIsNone() {
		this.runner.withPropertyValues("management.endpoint.sqlqueue.access=NONE")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(SqlQueueEndpoint.class));
	}

	@Test
	void countsJobsPerQueueAndState() {
		this.runner.run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			jobs.enqueueAll(List.of(Job.of("mail.send", 1).queue("mail"), Job.of("mail.digest", 2).queue("mail"),
					Job.of("report.build", 3).queue("reports")));
			fail(context.getBean(JobStore.class), "mail", "mail.send");
			QueuesDescriptor queues = context.getBean(SqlQueueEndpoint.class).queues();
			assertThat(queues.queues()).containsOnlyKeys("mail", "reports");
			assertThat(queues.queues().get("mail").jobs()).containsEntry(JobStatus.QUEUED, 1L)
				.containsEntry(JobStatus.FAILED, 1L)
				.containsEntry(JobStatus.SUCCEEDED, 0L)
				.hasSize(5);
			assertThat(queues.queues().get("reports").jobs()).containsEntry(JobStatus.QUEUED, 1L);
			assertThat(queues.queues().get("mail").totalWorkers()).isNull();
			assertThat(Duration.parse(queues.queues().get("reports").oldestDueAge())).isGreaterThanOrEqualTo(Duration.ZERO);
		});
	}

	@Test
	void listsSchedulesAndPausesResumesAndTriggersOne() {
		this.runner.run((context) -> {
			Schedules schedules = context.getBean(Schedules.class);
			schedules.create(ScheduleDefinition.of("nightly", "report.build",
					Recurrence.cron("0 0 2 * * *", "Europe/Berlin")));
			schedules.create(ScheduleDefinition.of("often", "report.build", Recurrence.every(Duration.ofMinutes(15))));
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);
			Map<String, ScheduleDescriptor> listed = endpoint.queues().schedules();
			assertThat(listed).containsOnlyKeys("nightly", "often");
			ScheduleDescriptor nightly = listed.get("nightly");
			assertThat(nightly.cron()).isEqualTo("0 0 2 * * *");
			assertThat(nightly.zone()).isEqualTo("Europe/Berlin");
			assertThat(nightly.every()).isNull();
			assertThat(nightly.source()).isEqualTo(ScheduleSource.API);
			assertThat(nightly.paused()).isFalse();
			assertThat(nightly.orphaned()).isFalse();
			assertThat(nightly.nextRunAt()).isNotNull();
			assertThat(listed.get("often").every()).isEqualTo("PT15M");

			ScheduleActionDescriptor paused = endpoint.scheduleAction("schedules", "nightly", "pause");
			assertThat(paused.done()).isTrue();
			assertThat(paused.schedule().paused()).isTrue();
			assertThat(endpoint.scheduleAction("schedules", "nightly", "pause").done()).isFalse();
			ScheduleActionDescriptor resumed = endpoint.scheduleAction("schedules", "nightly", "resume");
			assertThat(resumed.done()).isTrue();
			assertThat(resumed.schedule().paused()).isFalse();

			ScheduleActionDescriptor triggered = endpoint.scheduleAction("schedules", "nightly", "trigger");
			assertThat(triggered.done()).isTrue();
			JobRecord job = context.getBean(JobQueue.class).find(triggered.jobId()).orElseThrow();
			assertThat(job.handler()).isEqualTo("report.build");
			assertThat(triggered.schedule().lastJobId()).isEqualTo(triggered.jobId());
			assertThat(triggered.schedule().lastJobStatus()).isEqualTo(JobStatus.QUEUED);

			assertThat(endpoint.scheduleAction("schedules", "missing", "pause").done()).isFalse();
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.scheduleAction("schedules", "nightly", "explode"));
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.scheduleAction("other", "nightly", "pause"));
		});
	}

	@Test
	void showsAJobWithoutItsPayload() {
		this.runner.run((context) -> {
			long id = context.getBean(JobQueue.class).enqueue(Job.of("mail.send", Map.of("to", "ada@example.com")));
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);
			JobDescriptor job = endpoint.job(id);
			assertThat(job).isNotNull();
			assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
			assertThat(job.handler()).isEqualTo("mail.send");
			assertThat(job.attempts()).isZero();
			assertThat(job.payload()).isNull();
			assertThat(job.createdAt()).isNotNull();
			assertThat(endpoint.job(id + 1000)).isNull();
		});
	}

	@Test
	void showsThePayloadWhenAllowed() {
		this.runner.withPropertyValues("sqlqueue.endpoint.show-payload=true").run((context) -> {
			long id = context.getBean(JobQueue.class).enqueue(Job.of("mail.send", Map.of("to", "ada@example.com")));
			assertThat(context.getBean(SqlQueueEndpoint.class).job(id).payload()).contains("ada@example.com");
		});
	}

	@Test
	void retriesAFailedJobAndCancelsAQueuedOne() {
		this.runner.run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			long failed = jobs.enqueue("report.build", null);
			fail(context.getBean(JobStore.class), JobQueue.DEFAULT_QUEUE, "report.build");
			long queued = jobs.enqueue(Job.of("mail.send", null).delay(Duration.ofHours(1)));
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);

			ActionDescriptor cancelFailed = endpoint.jobAction(failed, "cancel");
			assertThat(cancelFailed.done()).isFalse();
			assertThat(cancelFailed.status()).isEqualTo(JobStatus.FAILED);
			assertThat(cancelFailed.message()).contains("only a QUEUED or RUNNING job can be cancelled");

			ActionDescriptor retry = endpoint.jobAction(failed, "retry");
			assertThat(retry.done()).isTrue();
			assertThat(retry.status()).isEqualTo(JobStatus.QUEUED);
			assertThat(jobs.find(failed)).map(JobRecord::attempts).hasValue(0);
			assertThat(endpoint.jobAction(failed, "retry").done()).isFalse();

			ActionDescriptor cancel = endpoint.jobAction(queued, "cancel");
			assertThat(cancel.done()).isTrue();
			assertThat(cancel.status()).isEqualTo(JobStatus.CANCELLED);

			// A running job's cancel is asked for; the job shows when.
			long running = jobs.enqueue(Job.of("mail.send", null).expireAfter(Duration.ofHours(2)));
			JobStore store = context.getBean(JobStore.class);
			assertThat(store.claim(new ClaimRequest("elsewhere", JobQueue.DEFAULT_QUEUE, List.of("mail.send"), 1,
					60_000))).extracting(JobRecord::id).containsExactly(running);
			ActionDescriptor askToStop = endpoint.jobAction(running, "cancel");
			assertThat(askToStop.done()).isTrue();
			assertThat(askToStop.status()).isEqualTo(JobStatus.RUNNING);
			assertThat(askToStop.message()).isEqualTo(
					"Job " + running + " is running: its cancel is asked for, and the instance that runs it stops it");
			JobDescriptor shown = endpoint.job(running);
			assertThat(shown.cancelRequestedAt()).isNotNull();
			assertThat(shown.deadline()).isNotNull();
			assertThat(shown.crashes()).isZero();

			ActionDescriptor unknown = endpoint.jobAction(Long.MAX_VALUE, "retry");
			assertThat(unknown.done()).isFalse();
			assertThat(unknown.status()).isNull();
			assertThat(unknown.message()).isEqualTo("No job " + Long.MAX_VALUE);
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.jobAction(queued, "delete"));
		});
	}

	@Test
	void retriesTheFailedJobsOfAQueueOrAHandler() {
		this.runner.run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			JobStore store = context.getBean(JobStore.class);
			List<Long> ids = jobs.enqueueAll(List.of(Job.of("mail.send", 1).queue("mail"),
					Job.of("mail.send", 2).queue("mail"), Job.of("mail.digest", 3).queue("mail"),
					Job.of("report.build", 4).queue("reports")));
			fail(store, "mail", "mail.send", "mail.digest");
			fail(store, "reports", "report.build");
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);

			RetriedDescriptor byHandler = endpoint.retryFailed("retry-failed", null, "mail.digest", null);
			assertThat(byHandler.retried()).isOne();
			assertThat(byHandler.ids()).containsExactly(ids.get(2));

			RetriedDescriptor byQueue = endpoint.retryFailed("retry-failed", "mail", null, 1);
			assertThat(byQueue.ids()).containsExactly(ids.get(0));
			assertThat(endpoint.retryFailed("retry-failed", "mail", null, null).ids()).containsExactly(ids.get(1));
			assertThat(jobs.find(ids.get(3))).map(JobRecord::status).hasValue(JobStatus.FAILED);
			assertThat(endpoint.retryFailed("retry-failed", null, null, null).ids()).containsExactly(ids.get(3));

			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.retryFailed("retry", "mail", null, null));
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.retryFailed("retry-failed", "mail", null, 0));
		});
	}

	/** Claims the due jobs of these handlers in the queue and fails them. */
	private static void fail(JobStore store, String queue, String... handlers) {
		for (JobRecord job : store.claim(new ClaimRequest("test", queue, List.of(handlers), 100, 60_000))) {
			store.fail(new Lease(job.id(), job.leaseToken()), "broken");
		}
	}

}
