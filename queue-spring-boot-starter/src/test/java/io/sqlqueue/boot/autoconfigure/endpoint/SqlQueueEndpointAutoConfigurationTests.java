package io.sqlqueue.boot.autoconfigure.endpoint;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.sqlqueue.Batch;
import io.sqlqueue.BatchIds;
import io.sqlqueue.DependencyFailure;
import io.sqlqueue.Job;
import io.sqlqueue.JobLinks;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.JobStep;
import io.sqlqueue.admin.AdminResult;
import io.sqlqueue.admin.JobSummary;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.Refusal;
import io.sqlqueue.admin.TableHealth;
import io.sqlqueue.boot.actuate.endpoint.ActionDescriptor;
import io.sqlqueue.boot.actuate.endpoint.BatchDescriptor;
import io.sqlqueue.boot.actuate.endpoint.BulkDescriptor;
import io.sqlqueue.boot.actuate.endpoint.CountDescriptor;
import io.sqlqueue.boot.actuate.endpoint.FairnessDescriptor;
import io.sqlqueue.boot.actuate.endpoint.JobDescriptor;
import io.sqlqueue.boot.actuate.endpoint.KeyLimitDescriptor;
import io.sqlqueue.boot.actuate.endpoint.LimitActionDescriptor;
import io.sqlqueue.boot.actuate.endpoint.LimitsDescriptor;
import io.sqlqueue.boot.actuate.endpoint.QueueActionDescriptor;
import io.sqlqueue.boot.actuate.endpoint.QueueDescriptor;
import io.sqlqueue.boot.actuate.endpoint.QueuesDescriptor;
import io.sqlqueue.boot.actuate.endpoint.RetriedDescriptor;
import io.sqlqueue.boot.actuate.endpoint.ScheduleActionDescriptor;
import io.sqlqueue.boot.actuate.endpoint.ScheduleDescriptor;
import io.sqlqueue.boot.actuate.endpoint.SearchDescriptor;
import io.sqlqueue.boot.actuate.endpoint.SignalDescriptor;
import io.sqlqueue.boot.actuate.endpoint.SqlQueueEndpoint;
import io.sqlqueue.boot.actuate.endpoint.StepDescriptor;
import io.sqlqueue.boot.autoconfigure.FixedTableHealth;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.internal.admin.DefaultQueueAdmin;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.InstanceReport;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleDefinition;
import io.sqlqueue.schedule.ScheduleSource;
import io.sqlqueue.schedule.Schedules;
import io.sqlqueue.test.EstimatingReads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

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
				.containsEntry(JobStatus.WAITING, 0L)
				.hasSize(6);
			assertThat(queues.queues().get("reports").jobs()).containsEntry(JobStatus.QUEUED, 1L);
			assertThat(queues.queues().get("mail").totalWorkers()).isNull();
			assertThat(Duration.parse(queues.queues().get("reports").oldestDueAge())).isGreaterThanOrEqualTo(Duration.ZERO);
		});
	}

	/** Counts the store estimates (a large PostgreSQL table) are marked as such, the others not. */
	@Test
	void marksTheCountsThatAreEstimates() {
		this.runner.withUserConfiguration(EstimatingReads.AsTheReadStore.class).run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			jobs.enqueue(Job.of("mail.send", 1).queue("mail"));
			fail(context.getBean(JobStore.class), "mail", "mail.send");
			jobs.enqueue(Job.of("mail.send", 2).queue("mail"));
			QueueDescriptor mail = context.getBean(SqlQueueEndpoint.class).queues().queues().get("mail");
			assertThat(mail.jobs()).containsEntry(JobStatus.QUEUED, 1L).containsEntry(JobStatus.FAILED, 1L);
			assertThat(mail.estimated()).containsExactly(JobStatus.QUEUED);
		});
	}

	@Test
	void listsSchedulesAndPausesResumesAndTriggersOne() {
		this.runner.run((context) -> {
			Schedules schedules = context.getBean(Schedules.class);
			schedules.create(ScheduleDefinition.of("nightly", "report.build",
					Recurrence.cron("0 0 2 * * *", "Europe/Berlin")).withQueue("reports").withMaxAttempts(3).withPriority(2));
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
			assertThat(nightly.queue()).isEqualTo("reports");
			assertThat(nightly.priority()).isEqualTo(2);
			assertThat(nightly.maxAttempts()).isEqualTo(3);
			assertThat(listed.get("often").every()).isEqualTo("PT15M");
			assertThat(listed.get("often").maxAttempts()).isNull();

			ScheduleActionDescriptor paused = (ScheduleActionDescriptor) endpoint.action("schedules", "nightly", "pause", null,
					null, null);
			assertThat(paused.done()).isTrue();
			assertThat(paused.schedule().paused()).isTrue();
			assertThat(((ScheduleActionDescriptor) endpoint.action("schedules", "nightly", "pause", null, null, null)).done()).isFalse();
			ScheduleActionDescriptor resumed = (ScheduleActionDescriptor) endpoint.action("schedules", "nightly", "resume",
					null, null, null);
			assertThat(resumed.done()).isTrue();
			assertThat(resumed.schedule().paused()).isFalse();

			ScheduleActionDescriptor triggered = (ScheduleActionDescriptor) endpoint.action("schedules", "nightly",
					"trigger", null, null, null);
			assertThat(triggered.done()).isTrue();
			JobRecord job = context.getBean(JobQueue.class).find(triggered.jobId()).orElseThrow();
			assertThat(job.handler()).isEqualTo("report.build");
			assertThat(job.queue()).isEqualTo("reports");
			assertThat(job.priority()).isEqualTo(2);
			assertThat(triggered.schedule().lastJobId()).isEqualTo(triggered.jobId());
			assertThat(triggered.schedule().lastJobStatus()).isEqualTo(JobStatus.QUEUED);

			ScheduleActionDescriptor unsettled = (ScheduleActionDescriptor) endpoint.action("schedules", "often",
					"trigger", null, null, null);
			assertThat(unsettled.done()).isFalse();
			assertThat(unsettled.jobId()).isNull();
			assertThat(unsettled.message()).contains("lacks its handler 'report.build'");
			assertThat(((ScheduleActionDescriptor) endpoint.action("schedules", "missing", "pause", null, null, null)).done()).isFalse();
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.action("schedules", "nightly", "explode", null, null, null));
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.action("other", "nightly", "pause", null, null, null));
		});
	}

	/**
	 * Fair turns through the endpoint: set (weighted), shown with the keys' due jobs and share
	 * of starts, bad weights a 400 that stores nothing, ended.
	 */
	@Test
	void setsShowsAndEndsFairTurns() {
		this.runner.withPropertyValues("sqlqueue.manager.enabled=false").run((context) -> {
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);
			LimitActionDescriptor fair = (LimitActionDescriptor) endpoint.action("limits", "api", "fair", null, null,
					null, "gold:*=3, tin=1", null, null);
			assertThat(fair.done()).isTrue();
			assertThat(fair.message()).isEqualTo("Keys of queue 'api' take turns: weighted {gold:*=3, tin=1}");
			assertThat(fair.limits().fairness().weights()).containsExactly(Map.entry("gold:*", 3), Map.entry("tin", 1));
			JobQueue jobs = context.getBean(JobQueue.class);
			jobs.enqueueAll(List.of(Job.of("call", 1).queue("api").concurrencyKey("gold:1"),
					Job.of("call", 2).queue("api").concurrencyKey("gold:1"), Job.of("call", 3).queue("api")));
			FairnessDescriptor shown = endpoint.queues().queues().get("api").limits().fairness();
			assertThat(shown.keys()).containsExactly(new io.sqlqueue.flow.FairKeyShare("gold:1", 2, 0, 0),
					new io.sqlqueue.flow.FairKeyShare(null, 1, 0, 0));
			for (String bad : List.of("gold:*=0", "gold:*=many", "a*b=2", "gold")) {
				assertThatExceptionOfType(InvalidEndpointRequestException.class)
					.isThrownBy(() -> endpoint.action("limits", "api", "fair", null, null, null, bad, null, null))
					.withMessageContaining("Invalid limit of fair turns of queue 'api'");
			}
			assertThat(endpoint.queues().queues().get("api").limits().fairness().weights())
				.as("nothing stored by a bad request").containsOnlyKeys("gold:*", "tin");
			LimitActionDescriptor unfair = (LimitActionDescriptor) endpoint.action("limits", "api", "unfair", null,
					null, null, null, null, null);
			assertThat(unfair.done()).isTrue();
			assertThat(unfair.limits()).isNull();
			assertThat(((LimitActionDescriptor) endpoint.action("limits", "api", "unfair", null, null, null, null, null,
					null)).done()).isFalse();
			assertThat(endpoint.queues().audit()).extracting("action")
				.containsExactly("remove-fairness", "set-fairness");
		});
	}

	@Test
	void showsLimitsAndTheJobsTheyHoldBackAndSetsAndRemovesThem() {
		this.runner.withPropertyValues("sqlqueue.manager.enabled=false").run((context) -> {
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);
			LimitActionDescriptor set = (LimitActionDescriptor) endpoint.action("limits", "api", "set", null, 1, "100/1m");
			assertThat(set.done()).isTrue();
			assertThat(set.message()).isEqualTo("Limit of queue 'api' is concurrency 1, rate 100/1m");
			LimitActionDescriptor keys = (LimitActionDescriptor) endpoint.action("limits", "api", "set", "customer:*", 2,
					null);
			assertThat(keys.limits().keyLimits()).containsEntry("customer:*", new KeyLimitDescriptor(2, null));
			QueueDescriptor idle = endpoint.queues().queues().get("api");
			assertThat(idle.limits()).isEqualTo(new LimitsDescriptor(1, "100/1m",
					Map.of("customer:*", new KeyLimitDescriptor(2, null)), null));
			assertThat(idle.throttled()).isEmpty();

			context.getBean(JobQueue.class).enqueueAll(List.of(Job.of("call", 1).queue("api"), Job.of("call", 2).queue("api")));
			context.getBean(JobStore.class).claim(new ClaimRequest("test", "api", List.of("call"), 10, 60_000));
			assertThat(endpoint.queues().queues().get("api").throttled()).containsExactly(Map.entry("queue-concurrency", 1L));

			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.action("limits", "api", "set", null, null, null))
				.withMessageContaining("a concurrency, a rate, or both");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.action("limits", "api", "set", null, 1, "fast"))
				.withMessageContaining("'fast' is not a rate limit");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.action("limits", "api", "open", null, 1, null));
			LimitActionDescriptor removed = (LimitActionDescriptor) endpoint.action("limits", "api", "remove", null, null,
					null);
			assertThat(removed.done()).isTrue();
			assertThat(removed.limits().concurrency()).isNull();
			assertThat(((LimitActionDescriptor) endpoint.action("limits", "api", "remove", null, null, null)).done())
				.isFalse();
			assertThat(((LimitActionDescriptor) endpoint.action("limits", "api", "remove", "customer:*", null, null))
				.limits()).isNull();
			assertThat(endpoint.queues().queues().get("api").limits()).isNull();
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
	void saysWhenThisInstanceHasNoHandlerForAJobYetToRun() {
		this.runner.withBean("mail", Mail.class).withPropertyValues("sqlqueue.remote-handlers=billing.*").run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);
			long typo = jobs.enqueue("mail.welcom", null);
			assertThat(endpoint.job(typo).handlerNotice()).contains("This instance has no handler named 'mail.welcom'",
					"Did you mean 'mail.welcome'?", "if no running instance has it, the job stays QUEUED and never runs");
			assertThat(endpoint.job(jobs.enqueue("mail.welcome", null)).handlerNotice()).isNull();
			assertThat(endpoint.job(jobs.enqueue("billing.charge", null)).handlerNotice()).isNull();
			jobs.cancel(typo);
			assertThat(endpoint.job(typo).handlerNotice()).isNull();
		});
	}

	@Test
	void showsThePayloadWhenAllowed() {
		this.runner.withPropertyValues("management.endpoint.sqlqueue.show-payload=true").run((context) -> {
			long id = context.getBean(JobQueue.class).enqueue(Job.of("mail.send", Map.of("to", "ada@example.com")));
			assertThat(context.getBean(SqlQueueEndpoint.class).job(id).payload()).contains("ada@example.com");
			context.getBean(JobQueue.class).signal(id, "paid", Map.of("invoice", "i-7"));
			assertThat(context.getBean(SqlQueueEndpoint.class).job(id).signals()).singleElement()
				.extracting(SignalDescriptor::payload)
				.isEqualTo("{\"invoice\":\"i-7\"}");
		});
	}

	/**
	 * A job's durable progress: its steps' results as the JSON they are (as the job's own
	 * result), a sleep's wake time, and its signals, their payloads hidden as the job's.
	 */
	@Test
	void showsAJobsStepsAndSignals() {
		this.runner.run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			JobStore store = context.getBean(JobStore.class);
			long id = jobs.enqueue(Job.of("billing.charge", Map.of("order", 7)));
			store.steps().recordStep(id, "charge", "{\"receipt\":\"r-1\"}");
			store.steps().recordSleep(id, "1", 60_000);
			jobs.signal(id, "paid", Map.of("invoice", "i-7"));
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);
			JobDescriptor job = endpoint.job(id);
			assertThat(job.steps()).extracting(StepDescriptor::kind, StepDescriptor::name, StepDescriptor::result)
				.containsExactly(org.assertj.core.groups.Tuple.tuple(JobStep.Kind.STEP, "charge", "{\"receipt\":\"r-1\"}"),
						org.assertj.core.groups.Tuple.tuple(JobStep.Kind.SLEEP, "1", null));
			assertThat(job.steps().get(0).wakeAt()).isNull();
			assertThat(job.steps().get(1).wakeAt()).isAfter(job.steps().get(1).recordedAt());
			assertThat(job.signals()).singleElement().satisfies((signal) -> {
				assertThat(signal.name()).isEqualTo("paid");
				assertThat(signal.payload()).isNull();
				assertThat(signal.sentAt()).isNotNull();
			});
			JsonNode json = context.getBean(JsonMapper.class).readTree(context.getBean(JsonMapper.class)
				.writeValueAsString(job));
			assertThat(json.get("steps").get(0).get("kind").asString()).isEqualTo("STEP");
			assertThat(json.get("steps").get(0).get("result").get("receipt").asString()).isEqualTo("r-1");
			assertThat(json.get("steps").get(1).get("timedOut").asBoolean()).isFalse();
			assertThat(json.get("steps").get(1).get("wakeAt").isNull()).isFalse();
			assertThat(json.get("signals").get(0).get("name").asString()).isEqualTo("paid");
			assertThat(json.get("signals").get(0).get("payload").isNull()).isTrue();
			assertThat(endpoint.job(jobs.enqueue("mail.send", null)).steps()).isEmpty();
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
			assertThat(cancelFailed.message()).contains("only a WAITING, QUEUED or RUNNING job can be cancelled");

			ActionDescriptor retry = endpoint.jobAction(failed, "retry");
			assertThat(retry.done()).isTrue();
			assertThat(retry.status()).isEqualTo(JobStatus.QUEUED);
			assertThat(jobs.find(failed)).map(JobRecord::attempts).hasValue(0);
			assertThat(endpoint.jobAction(failed, "retry").done()).isFalse();
			assertThat(endpoint.jobAction(failed, "retry").message())
				.isEqualTo("Job " + failed + " is QUEUED; only a FAILED job can be retried");

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

	/**
	 * The operator's way out for a durable job that stopped on a replay mismatch
	 * (docs/durable-steps.md#the-operators-way-out): {@code retry-from} deletes its records from
	 * the one named on and queues it again, refused as retry is and for a record it lacks; a
	 * missing or non-positive record, or one with another action, is a 400 and changes nothing.
	 */
	@Test
	void retriesAFailedDurableJobFromARecord() {
		this.runner.run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			JobStore store = context.getBean(JobStore.class);
			long failed = jobs.enqueue("order.ship", null);
			store.steps().recordStep(failed, "charge", "1");
			store.steps().recordStep(failed, "ship", "2");
			store.steps().recordStep(failed, "mail", "3");
			fail(store, JobQueue.DEFAULT_QUEUE, "order.ship");
			long queued = jobs.enqueue(Job.of("mail.send", null).delay(Duration.ofHours(1)));
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);

			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.jobAction(failed, "retry-from"))
				.withMessage("Action 'retry-from' needs 'record': the number, from 1, of the first of the job's "
						+ "records to delete");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.jobAction(failed, "retry-from", 0))
				.withMessage("'record' is numbered from 1, as the job's steps list them; 0 is not a record");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.jobAction(failed, "retry", 2))
				.withMessage("'record' is only for action 'retry-from', not 'retry'");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.jobAction(failed, "retry-to", 2))
				.withMessage("'record' is only for action 'retry-from', not 'retry-to'");

			ActionDescriptor noRecord = endpoint.jobAction(failed, "retry-from", 4);
			assertThat(noRecord.done()).isFalse();
			assertThat(noRecord.status()).isEqualTo(JobStatus.FAILED);
			assertThat(noRecord.message()).isEqualTo("Job " + failed + " has 3 records; there is no record 4 to retry from");
			ActionDescriptor notFailed = endpoint.jobAction(queued, "retry-from", 1);
			assertThat(notFailed.done()).isFalse();
			assertThat(notFailed.status()).isEqualTo(JobStatus.QUEUED);
			assertThat(notFailed.message()).isEqualTo("Job " + queued + " is QUEUED; only a FAILED job can be retried");
			ActionDescriptor unknown = endpoint.jobAction(Long.MAX_VALUE, "retry-from", 1);
			assertThat(unknown.done()).isFalse();
			assertThat(unknown.status()).isNull();
			assertThat(unknown.message()).isEqualTo("No job " + Long.MAX_VALUE);
			assertThat(jobs.steps(failed)).hasSize(3);
			assertThat(endpoint.queues().audit()).isEmpty();

			ActionDescriptor retried = endpoint.jobAction(failed, "retry-from", 2, "alice", null);
			assertThat(retried.done()).as(retried.message()).isTrue();
			assertThat(retried.action()).isEqualTo("retry-from");
			assertThat(retried.status()).isEqualTo(JobStatus.QUEUED);
			assertThat(jobs.find(failed)).map(JobRecord::attempts).hasValue(0);
			assertThat(jobs.steps(failed)).extracting(JobStep::name).containsExactly("charge");
			assertThat(endpoint.queues().audit()).extracting("action", "actor", "jobId")
				.containsExactly(org.assertj.core.groups.Tuple.tuple("retry-from", "alice", failed));
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
				.isThrownBy(() -> endpoint.retryFailed("retry-failed", "mail", null, 0))
				.withMessage("The limit must be 1 to 1000, not 0");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.retryFailed("retry-failed", "mail", null, QueueAdmin.MAX_BULK + 1))
				.withMessage("The limit must be 1 to 1000, not 1001");
		});
	}

	@Test
	void searchesCountsAndActsOnEveryJobThatMatchesAFilter() {
		this.runner.run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			List<Long> ids = jobs.enqueueAll(List.of(Job.of("mail.send", 1).queue("mail").tags("campaign-42"),
					Job.of("mail.send", 2).queue("mail").tags("campaign-42").meta("tenant", "acme, inc"),
					Job.of("mail.send", 3).queue("mail").tags("other")));
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);

			SearchDescriptor page = (SearchDescriptor) endpoint.read("jobs", "search", null, null, null, null,
					"campaign-42", null, null, null, null, null, null, 1);
			assertThat(page.jobs()).extracting(JobSummary::id).containsExactly(ids.get(1));
			assertThat(page.older()).isEqualTo(ids.get(1));
			SearchDescriptor next = (SearchDescriptor) endpoint.read("jobs", "search", null, null, null, null,
					"campaign-42", null, null, null, null, page.older(), null, 1);
			assertThat(next.jobs()).extracting(JobSummary::id).containsExactly(ids.get(0));
			assertThat(((CountDescriptor) endpoint.read("jobs", "count", "mail", null, "queued", null, "campaign-42",
					"tenant=acme, inc", null, null, null, null, null, null)).count()).isOne();

			CountDescriptor counted = (CountDescriptor) endpoint.jobs("count", "mail", null, null, null, null,
					"campaign-42", null, null, null, null, null, null);
			assertThat(counted.count()).isEqualTo(2);
			BulkDescriptor cancelled = (BulkDescriptor) endpoint.jobs("cancel", "mail", null, null, null, null,
					"campaign-42", null, null, null, null, "ops", null);
			assertThat(cancelled.done()).isTrue();
			assertThat(cancelled.changed()).isEqualTo(2);
			assertThat(context.getBean(QueueAdmin.class).audit(1)).singleElement().satisfies((entry) -> {
				assertThat(entry.actor()).isEqualTo("ops");
				assertThat(entry.action()).isEqualTo("bulk-cancel");
				assertThat(entry.queue()).isEqualTo("mail");
				assertThat(entry.jobs()).isEqualTo(2);
				assertThat(entry.detail()).isEqualTo("queue=mail tags=[campaign-42]");
			});
			assertThat(cancelled.message()).startsWith("Cancelled (or, running, asked to stop) 2 of 2 matching jobs");
			assertThat(jobs.find(ids.get(2))).map(JobRecord::status).hasValue(JobStatus.QUEUED);
			BulkDescriptor none = (BulkDescriptor) endpoint.jobs("delete", null, null, null, null, null, "nobody", null,
					null, null, null, null, null);
			assertThat(none.done()).isFalse();
			assertThat(none.message()).isEqualTo("No job matches the filter: nothing to delete");

			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.jobs("cancel", null, null, null, null, null, null, null, null, null, null, null,
						null))
				.withMessageStartingWith("A bulk action needs a filter");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.read("jobs", "search", null, null, null, null, "a b", null, null, null, null,
						null, null, null))
				.withMessageContaining("Invalid tag 'a b'");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.read("jobs", "count", null, null, null, null, null, "no-equals-sign", null,
						null, null, null, null, null))
				.withMessageContaining("'meta' must be name=value");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.read("jobs", "count", null, null, null, null, null, null, null, "yesterday",
						null, null, null, null))
				.withMessageContaining("'createdFrom' must be an ISO-8601 instant");
			// H2: the payload cannot be searched, and says so.
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.read("jobs", "count", null, null, null, null, null, null, "customer.id=7",
						null, null, null, null, null))
				.withMessageContaining("cannot search jobs by payload field");
			assertThat(jobs.find(ids.get(2))).map(JobRecord::status).hasValue(JobStatus.QUEUED);
			JobDescriptor labelled = endpoint.job(ids.get(1));
			assertThat(labelled.tags()).containsExactly("campaign-42");
			assertThat(labelled.meta()).containsEntry("tenant", "acme, inc");
		});
	}

	@Test
	void writesThroughTheApplicationsQueueAdmin() {
		QueueAdmin admin = mock(QueueAdmin.class);
		given(admin.retry(42)).willReturn(new AdminResult(false, Refusal.NO_SUCH_JOB, "Not here", null, List.of()));
		// The endpoint acts for whoever the request names: the same admin here.
		given(admin.by(org.mockito.ArgumentMatchers.any())).willReturn(admin);
		this.runner.withBean(QueueAdmin.class, () -> admin).run((context) -> {
			assertThat(context).hasSingleBean(QueueAdmin.class);
			ActionDescriptor retry = context.getBean(SqlQueueEndpoint.class).jobAction(42, "retry");
			assertThat(retry.message()).isEqualTo("Not here");
		});
	}

	/** The tables' health comes from the admin path, as last read: the endpoint does not read it. */
	@Test
	void showsTheTablesHealthThroughTheQueueAdmin() {
		this.runner.withBean(FixedTableHealth.class).run((context) -> {
			FixedTableHealth tables = context.getBean(FixedTableHealth.class);
			tables.set(FixedTableHealth.heldBack(12, Duration.ofMinutes(3)));
			TableHealth shown = context.getBean(SqlQueueEndpoint.class).queues().tables();
			assertThat(shown).isSameAs(tables.latest()).isSameAs(context.getBean(QueueAdmin.class).tableHealth());
			assertThat(shown.holdingBack(Duration.ofMinutes(1))).extracting(TableHealth.Holder::pid).containsExactly(4242L);
		});
	}

	@Test
	void providesAQueueAdmin() {
		this.runner.run((context) -> assertThat(context).hasSingleBean(QueueAdmin.class)
			.getBean(QueueAdmin.class)
			.isInstanceOf(DefaultQueueAdmin.class));
	}

	/** Claims the due jobs of these handlers in the queue and fails them. */
	@Test
	void showsAJobsPlaceInAWorkflowAndABatchsProgress() {
		this.runner.run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);
			BatchIds batch = jobs.enqueue(Batch.of(List.of(Job.of("report.build", 1), Job.of("report.build", 2)))
				.callback(Job.of("report.bundle", null)));
			long first = batch.jobIds().get(0);
			long after = jobs.enqueue(Job.of("mail.send", 3).after(first).onDependencyFailure(DependencyFailure.RUN));

			JobDescriptor member = endpoint.job(first);
			assertThat(member.workflow().dependents()).extracting(JobLinks.LinkedJob::id).containsExactly(after);
			assertThat(member.workflow().batch().id()).isEqualTo(batch.batchId());
			JobDescriptor waiting = endpoint.job(after);
			assertThat(waiting.status()).isEqualTo(JobStatus.WAITING);
			assertThat(waiting.workflow().waitingFor()).isEqualTo(1);
			assertThat(waiting.workflow().onDependencyFailure()).isEqualTo(DependencyFailure.RUN);
			assertThat(waiting.workflow().dependencies()).extracting(JobLinks.LinkedJob::status)
				.containsExactly(JobStatus.QUEUED);
			assertThat(waiting.workflow().graph().jobs()).extracting(JobLinks.LinkedJob::id)
				.containsExactly(first, after);
			assertThat(waiting.workflow().graph().edges()).singleElement()
				.satisfies((edge) -> assertThat(edge).containsExactly(first, after));
			assertThat(endpoint.job(batch.callbackId()).workflow().callbackOf().pending()).isEqualTo(2);
			long plain = jobs.enqueue("mail.send", 4);
			assertThat(endpoint.job(plain).workflow()).isNull();

			JobStore store = context.getBean(JobStore.class);
			JobRecord claimed = store.claim(new ClaimRequest("test", "default", List.of("report.build"), 1, 60_000))
				.get(0);
			store.fail(new Lease(claimed.id(), claimed.leaseToken()), "broken");
			BatchDescriptor progress = endpoint.batch("batches", batch.batchId());
			assertThat(progress.total()).isEqualTo(2);
			assertThat(progress.failed()).isEqualTo(1);
			assertThat(progress.pending()).isEqualTo(1);
			assertThat(progress.callbackId()).isEqualTo(batch.callbackId());
			assertThat(endpoint.batch("batches", 999_999)).isNull();
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.batch("jobs", batch.batchId()));
			// The callback still waits; the job after the failed one runs anyway (RUN).
			assertThat(endpoint.queues().queues().get("default").jobs()).containsEntry(JobStatus.WAITING, 1L);
		});
	}

	@Test
	void pausesAndResumesAQueueAndShowsItsPause() {
		this.runner.run((context) -> {
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);
			// Known by the job waiting in it: this instance runs no Manager.
			context.getBean(JobQueue.class).enqueue(Job.of("call", 1).queue("api"));
			QueueActionDescriptor paused = (QueueActionDescriptor) endpoint.action("queues", "api", "pause", null, null,
					null);
			assertThat(paused.done()).isTrue();
			assertThat(paused.message()).startsWith("Queue 'api' is paused");
			QueueDescriptor api = endpoint.queues().queues().get("api");
			assertThat(api.paused()).isNotNull();
			assertThat(api.paused().pausedAt()).isNotNull();
			QueueActionDescriptor again = (QueueActionDescriptor) endpoint.action("queues", "api", "pause", null, null,
					null);
			assertThat(again.done()).isFalse();
			assertThat(again.message()).isEqualTo("Queue 'api' was paused already");
			assertThat(((QueueActionDescriptor) endpoint.action("queues", "api", "resume", null, null, null)).done())
				.isTrue();
			assertThat(endpoint.queues().queues().get("api").paused()).isNull();
			assertThat(((QueueActionDescriptor) endpoint.action("queues", "api", "resume", null, null, null)).message())
				.isEqualTo("Queue 'api' was not paused");
		});
	}

	@Test
	void refusesToPauseABlankMalformedOrUnknownQueueAndStoresNothing() {
		this.runner.run((context) -> {
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.action("queues", " ", "pause", null, null, null))
				.withMessage("Invalid queue name ' ': it is blank");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.action("queues", "a b", "pause", null, null, null))
				.withMessageStartingWith("Invalid queue name 'a b'");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.action("queues", "nowhere", "pause", null, null, null))
				.withMessageStartingWith("No queue 'nowhere'");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.action("queues", "nowhere", "stop", null, null, null))
				.withMessageStartingWith("Unknown action 'stop'");
			assertThat(context.getBean(QueueAdmin.class).pausedQueues()).isEmpty();
			assertThat(endpoint.queues().queues()).doesNotContainKey("nowhere");
		});
	}

	@Test
	void listsTheInstancesThatRunJobs() {
		this.runner.run((context) -> {
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);
			assertThat(endpoint.queues().instances()).isEmpty();
			context.getBean(JobStore.class)
				.cluster()
				.beat(new InstanceReport("web-1", "web", 42, "1.0", List.of("mail", "default"), 16, 3, 20_000));
			assertThat(endpoint.queues().instances()).singleElement().satisfies((instance) -> {
				assertThat(instance.id()).isEqualTo("web-1");
				assertThat(instance.queues()).containsExactly("mail", "default");
				assertThat(instance.busyWorkers()).isEqualTo(3);
				assertThat(instance.gone()).isFalse();
				assertThat(instance.sinceSeen()).startsWith("PT");
			});
		});
	}

	@Test
	void actsForTheSignedInUserElseForTheNamedOneAndShowsTheAuditLogAndAJobsHistory() {
		this.runner.run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			long failed = jobs.enqueue("report.build", null);
			fail(context.getBean(JobStore.class), JobQueue.DEFAULT_QUEUE, "report.build");
			jobs.enqueue(Job.of("mail.send", null).delay(Duration.ofHours(1)));
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);
			java.security.Principal alice = () -> "alice";
			assertThat(endpoint.jobAction(failed, "retry", "someone-else", alice).done()).isTrue();
			assertThat(((QueueActionDescriptor) endpoint.action("queues", "default", "pause", null, null, null, null,
					"bob", null)).done()).isTrue();
			assertThat(endpoint.queues().queues().get("default").paused().pausedBy()).isEqualTo("bob");
			assertThat(((QueueActionDescriptor) endpoint.action("queues", "default", "resume", null, null, null, null,
					null, null)).done()).isTrue();
			assertThat(endpoint.queues().audit()).extracting("action", "actor")
				.containsExactly(org.assertj.core.groups.Tuple.tuple("resume-queue", null),
						org.assertj.core.groups.Tuple.tuple("pause-queue", "bob"),
						org.assertj.core.groups.Tuple.tuple("retry", "alice"));
			assertThat(endpoint.job(failed).history()).singleElement().satisfies((attempt) -> {
				assertThat(attempt.outcome()).isEqualTo("failed");
				assertThat(attempt.worker()).isEqualTo("test");
				assertThat(attempt.error()).isEqualTo("broken");
			});
		});
	}

	private static void fail(JobStore store, String queue, String... handlers) {
		for (JobRecord job : store.claim(new ClaimRequest("test", queue, List.of(handlers), 100, 60_000))) {
			store.fail(new Lease(job.id(), job.leaseToken()), "broken");
		}
	}

	static class Mail {

		@io.sqlqueue.JobHandler(value = "mail.welcome", queue = "mail")
		void welcome() {
		}

	}

}
