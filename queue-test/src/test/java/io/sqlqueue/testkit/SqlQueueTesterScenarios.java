package io.sqlqueue.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.Batch;
import io.sqlqueue.Job;
import io.sqlqueue.JobContext;
import io.sqlqueue.JobHandler;
import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.NonRetryableException;
import io.sqlqueue.boot.schedule.Recurring;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.InstanceReport;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.schedule.FiredTick;
import io.sqlqueue.schedule.ScheduleRecord;
import io.sqlqueue.schedule.Schedules;

import static java.time.temporal.ChronoUnit.MILLIS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * Every call of the test kit, in an application test as a user writes one: the application's
 * own handlers, its {@link JobQueue}, and the {@link SqlQueueTester} bean, on the database of
 * the subclass (the real SQL runs there).
 */
@SpringBootTest(classes = SqlQueueTesterScenarios.App.class, properties = "sqlqueue.maintenance.schedule-interval=100ms")
abstract class SqlQueueTesterScenarios {

	@Autowired
	private JobQueue jobs;

	@Autowired
	private SqlQueueTester tester;

	@Autowired
	private Mailer mailer;

	@Autowired
	private Manager manager;

	@Autowired
	private JdbcTemplate jdbc;

	@Autowired
	private FlowControl flowControl;

	@Autowired
	private Schedules schedules;

	@Autowired
	private Ticks ticks;

	@Autowired
	private JobStore store;

	@Autowired
	private Orders orders;

	/** A table of the queue, as the subclass's database names it. */
	protected abstract String table(String name);

	/** A name quoted, as Flyway names its history table (in lower case). */
	protected String quoted(String name) {
		return "\"" + name + "\"";
	}

	@BeforeEach
	void emptyTheQueue() {
		this.tester.reset();
		this.mailer.sent.clear();
		this.ticks.scheduledFor.clear();
	}

	@Test
	void enqueuedJobsWaitForTheTest() {
		assertThat(this.manager.isRunning()).as("the Manager does not start").isFalse();
		this.jobs.enqueue("mail.welcome", new Mail("ada@example.com"));
		assertThat(this.tester.assertEnqueued("mail.welcome", Mail.class)).containsExactly(new Mail("ada@example.com"));
		assertThat(this.tester.enqueued("mail.welcome")).singleElement()
			.satisfies((job) -> assertThat(job.status()).isEqualTo(JobStatus.QUEUED));
		this.tester.assertNotEnqueued("report.flaky");
		assertThatThrownBy(() -> this.tester.assertEnqueued("report.flaky", Integer.class))
			.isInstanceOf(AssertionError.class)
			.hasMessageContaining("queued jobs by handler: {mail.welcome=1}");
		assertThatThrownBy(() -> this.tester.assertNotEnqueued("mail.welcome")).isInstanceOf(AssertionError.class)
			.hasMessageContaining("ada@example.com");
		assertThat(this.mailer.sent).isEmpty();
	}

	/**
	 * A job with durable steps runs to each park in turn: it waits for a signal the test
	 * sends, then for a sleep the test ends; its charge ran once over three runs.
	 */
	@Test
	void aJobRunsToItsNextParkAndResumesOnASignalAndAWakeUp() {
		long id = this.jobs.enqueue("order.fulfil", "book");
		assertThat(this.tester.run(id).parked()).as("waits for the payment's callback").isTrue();
		assertThat(this.tester.runDue()).as("parked, not due").isEmpty();
		this.tester.signal(id, "payment", "paid");
		RanJob slept = this.tester.runDue().get(0);
		assertThat(slept.outcome()).as("now sleeps a day").isEqualTo(JobOutcome.PARKED);
		assertThat(slept.job().attempts()).as("no attempt spent").isZero();
		this.tester.wakeUp(id);
		RanJob done = this.tester.runDue().get(0);
		assertThat(done.result(String.class)).isEqualTo("book: charged 1, paid");
		assertThat(this.orders.charges).hasValue(1);
		assertThatThrownBy(() -> this.tester.wakeUp(id)).isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("SUCCEEDED");

		long unpaid = this.jobs.enqueue("order.fulfil", "pen");
		assertThat(this.tester.runUntilSettled()).extracting(RanJob::outcome)
			.as("its wait times out, its sleep ends: it settles")
			.containsExactly(JobOutcome.PARKED, JobOutcome.PARKED, JobOutcome.SUCCEEDED);
		assertThat(this.jobs.find(unpaid).orElseThrow().result()).isEqualTo("\"pen: charged 2, no callback\"");
	}

	@Test
	void runDueRunsEveryDueJobOnTheTestsThread() {
		long welcome = this.jobs.enqueue("mail.welcome", new Mail("ada@example.com"));
		long later = this.jobs.enqueue(Job.of("mail.welcome", new Mail("later@example.com")).delay(Duration.ofHours(1)));
		long signup = this.jobs.enqueue("signup.process", new Mail("bob@example.com"));

		List<RanJob> ran = this.tester.runDue();

		assertThat(ran).extracting(RanJob::handler, RanJob::outcome)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("mail.welcome", JobOutcome.SUCCEEDED),
					org.assertj.core.groups.Tuple.tuple("signup.process", JobOutcome.SUCCEEDED),
					org.assertj.core.groups.Tuple.tuple("mail.welcome", JobOutcome.SUCCEEDED));
		assertThat(ran.get(0).id()).isEqualTo(welcome);
		assertThat(ran.get(0).result(String.class)).isEqualTo("sent to ada@example.com");
		assertThat(ran.get(0).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(ran.get(1).id()).isEqualTo(signup);
		assertThat(ran.get(2).result(String.class)).as("the job the signup job enqueued ran too")
			.isEqualTo("sent to bob@example.com");
		assertThat(this.mailer.threads).containsOnly(Thread.currentThread().getName());
		assertThat(this.tester.enqueued("mail.welcome")).extracting((job) -> job.id()).containsExactly(later);

		assertThat(this.tester.runDue(true)).singleElement().satisfies((job) -> {
			assertThat(job.id()).isEqualTo(later);
			assertThat(job.succeeded()).isTrue();
		});
		assertThat(this.tester.runDue(true)).isEmpty();
		assertThat(this.mailer.sent).containsExactly("ada@example.com", "bob@example.com", "later@example.com");
	}

	/** A job that runs after another is enqueued (WAITING) and runs in the same runDue, after it. */
	@Test
	void aWorkflowsStepsAreEnqueuedAndRunInTheirOrder() {
		long first = this.jobs.enqueue("mail.welcome", new Mail("first@example.com"));
		long then = this.jobs.enqueue(Job.of("mail.welcome", new Mail("then@example.com")).after(first));
		assertThat(this.tester.enqueued("mail.welcome")).extracting(JobRecord::id, JobRecord::status)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(first, JobStatus.QUEUED),
					org.assertj.core.groups.Tuple.tuple(then, JobStatus.WAITING));
		assertThat(this.tester.assertEnqueued("mail.welcome", Mail.class))
			.containsExactly(new Mail("first@example.com"), new Mail("then@example.com"));

		assertThat(this.tester.runDue()).extracting(RanJob::id).containsExactly(first, then);
		assertThat(this.mailer.sent).containsExactly("first@example.com", "then@example.com");
		this.tester.assertNotEnqueued("mail.welcome");
	}

	/** The queue's limits hold for runDue, as for the Manager; run(id) runs the job it names. */
	@Test
	void runDueKeepsTheLimitsAndRunRunsTheJobItNames() {
		this.flowControl.setLimit("mail", Limit.rate(1, Duration.ofHours(1)));
		try {
			List<Long> ids = this.jobs.enqueueAll(List.of(Job.of("mail.welcome", new Mail("a@example.com")),
					Job.of("mail.welcome", new Mail("b@example.com"))));
			assertThat(this.tester.runDue()).extracting(RanJob::id).containsExactly(ids.get(0));
			assertThat(this.tester.runDue()).isEmpty();
			assertThat(this.tester.run(ids.get(1)).succeeded()).isTrue();
		}
		finally {
			this.flowControl.removeLimit("mail");
		}
	}

	@Test
	void failedAttemptsAreRetriedUntilTheJobSettles() {
		long flaky = this.jobs.enqueue("report.flaky", 2);
		long broken = this.jobs.enqueue("report.broken", "no such report");

		List<RanJob> first = this.tester.runDue();
		assertThat(first).extracting(RanJob::id, RanJob::outcome)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(flaky, JobOutcome.RETRIED),
					org.assertj.core.groups.Tuple.tuple(broken, JobOutcome.FAILED));
		assertThat(first.get(0).error()).contains("IllegalStateException: attempt 1 of 3 fails");
		assertThat(first.get(0).status()).as("waits for its backoff").isEqualTo(JobStatus.QUEUED);
		assertThat(first.get(1).error()).contains("NonRetryableException: no such report");
		assertThat(this.tester.runDue()).as("the retry is not due yet").isEmpty();

		List<RanJob> rest = this.tester.runUntilSettled();
		assertThat(rest).extracting(RanJob::attempt, RanJob::outcome)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(2, JobOutcome.RETRIED),
					org.assertj.core.groups.Tuple.tuple(3, JobOutcome.SUCCEEDED));
		assertThat(rest.get(1).result(Integer.class)).isEqualTo(3);
		assertThat(this.jobs.find(flaky).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
	}

	@Test
	void runRunsOneJobByIdWhetherDueOrNot() throws InterruptedException {
		long later = this.jobs.enqueue(Job.of("mail.welcome", new Mail("ada@example.com")).delay(Duration.ofDays(1)));
		long other = this.jobs.enqueue("mail.welcome", new Mail("grace@example.com"));

		RanJob ran = this.tester.run(later);

		assertThat(ran.succeeded()).isTrue();
		assertThat(ran.attempt()).isEqualTo(1);
		assertThat(ran.result(String.class)).isEqualTo("sent to ada@example.com");
		assertThat(this.mailer.sent).containsExactly("ada@example.com");
		assertThat(this.jobs.await(later, Duration.ofSeconds(1)).status()).as("awaiters are told")
			.isEqualTo(JobStatus.SUCCEEDED);
		assertThat(this.tester.enqueued("mail.welcome")).extracting((job) -> job.id()).containsExactly(other);
		assertThatThrownBy(() -> this.tester.run(later)).isInstanceOf(IllegalArgumentException.class)
			.hasMessage("Job " + later + " is not queued: it is SUCCEEDED");
	}

	/**
	 * However late in the suite a test runs, a schedule's tick does not enqueue a job into
	 * it: here the test waits past a tick of the 1-second schedule, and then runs only its own
	 * job (with the firer running, each tick's job ran too, and the schedule moved on).
	 */
	@Test
	void aScheduleDoesNotFireIntoATestThatRunsPastItsTick() throws InterruptedException {
		ScheduleRecord before = this.schedules.find("tick").orElseThrow();
		waitUntilPast(before.nextRunAt().plusMillis(500));
		long own = this.jobs.enqueue("mail.welcome", new Mail("ada@example.com"));

		assertThat(this.tester.runDue()).extracting(RanJob::id).containsExactly(own);
		assertThat(this.ticks.scheduledFor).isEmpty();
		this.tester.assertNotEnqueued("tick");
		assertThat(this.schedules.find("tick").orElseThrow().nextRunAt()).as("no firer moved it on")
			.isEqualTo(before.nextRunAt());
	}

	/** runSchedule enqueues the schedule's job with its stored settings and runs it, once. */
	@Test
	void runScheduleRunsTheSchedulesJobOnce() {
		ScheduleRecord schedule = this.schedules.find("tick").orElseThrow();

		RanJob ran = this.tester.runSchedule("tick");

		assertThat(ran.handler()).isEqualTo("tick");
		assertThat(ran.succeeded()).isTrue();
		assertThat(ran.result(String.class)).isEqualTo("tock");
		assertThat(ran.job().queue()).isEqualTo("clock");
		assertThat(ran.job().maxAttempts()).isEqualTo(2);
		assertThat(this.ticks.scheduledFor).singleElement().isNotNull();
		assertThat(this.tester.runDue()).as("nothing else was enqueued").isEmpty();
		assertThat(this.ticks.scheduledFor).hasSize(1);
		assertThat(this.schedules.find("tick").orElseThrow().nextRunAt()).as("its next tick stays")
			.isEqualTo(schedule.nextRunAt());
		assertThatThrownBy(() -> this.tester.runSchedule("tock")).isInstanceOf(IllegalArgumentException.class)
			.hasMessageStartingWith("No schedule named 'tock'; the schedules are [tick]");
	}

	/** fireDueSchedules is one pass of the firer: the tick that passed enqueues one job, for runDue. */
	@Test
	void fireDueSchedulesFiresThePassedTickForRunDue() throws InterruptedException {
		ScheduleRecord before = this.schedules.find("tick").orElseThrow();
		waitUntilPast(before.nextRunAt().plusMillis(1500));

		List<FiredTick> fired = this.tester.fireDueSchedules();

		assertThat(fired).as("the ticks that passed, handled").hasSizeGreaterThanOrEqualTo(2)
			.allSatisfy((tick) -> assertThat(tick.schedule()).isEqualTo("tick"));
		List<FiredTick> enqueued = fired.stream().filter((tick) -> !tick.skipped()).toList();
		assertThat(enqueued).as("a job for the newest only (FIRE_ONCE)").hasSize(1);
		assertThat(this.tester.runDue()).extracting(RanJob::id).containsExactly(enqueued.get(0).jobId());
		assertThat(this.ticks.scheduledFor).singleElement()
			.satisfies((scheduledFor) -> assertThat(scheduledFor).isCloseTo(enqueued.get(0).tick(), within(1, MILLIS)));
		assertThat(this.schedules.find("tick").orElseThrow().nextRunAt()).as("it moved on to its next tick")
			.isAfter(enqueued.get(0).tick());
	}

	/**
	 * An application on the same database (its row written as its instance beat writes it):
	 * reset() and the runs refuse, naming it, and delete nothing. Another test's instance, and
	 * an instance that missed its beats, are no reason to refuse.
	 */
	@Test
	void refusesBesideALiveInstanceThatIsNotATest() {
		long id = this.jobs.enqueue("mail.welcome", new Mail("ada@example.com"));
		InstanceReport devApp = new InstanceReport("devbox-4242-app", "devbox", 4242, "1.0.0", List.of("mail"), 8, 0,
				20_000);
		InstanceReport otherTest = new InstanceReport("ci-7-x" + SqlQueueTester.TEST_INSTANCE_SUFFIX, "ci", 7, "1.0.0",
				List.of("mail"), 8, 0, 20_000);
		InstanceReport crashed = new InstanceReport("crashed-app", "devbox", 4243, "1.0.0", List.of("mail"), 8, 0, 1);
		this.store.cluster().beat(otherTest);
		this.store.cluster().beat(devApp);
		try {
			assertThatThrownBy(this.tester::reset).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("Refusing to reset the queue: this database has a live instance that is not a "
						+ "test")
				.hasMessageContaining("devbox-4242-app on host devbox, pid 4242, last beat ")
				.hasMessageContaining("serving [mail]")
				.hasMessageNotContaining("ci-7-x");
			assertThat(this.jobs.find(id)).as("nothing deleted").isPresent();
			assertThatThrownBy(this.tester::runDue).isInstanceOf(IllegalStateException.class)
				.hasMessageStartingWith("Refusing to run jobs");
			assertThat(this.jobs.find(id).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
		}
		finally {
			this.store.cluster().deleteInstance(devApp.id());
		}
		this.store.cluster().beat(crashed);
		try {
			// Beating every millisecond, it is gone three milliseconds after its one beat.
			org.awaitility.Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.pollInSameThread() // a handler runs on the test's thread, as the other tests check
				.untilAsserted(() -> assertThat(this.tester.run(id).succeeded()).isTrue());
		}
		finally {
			this.store.cluster().deleteInstance(crashed.id());
			this.store.cluster().deleteInstance(otherTest.id());
		}
	}

	/**
	 * reset() empties the queue — jobs in every state, dependency edges, batches, spent rates,
	 * taken unique keys — and keeps the schedules, the limits and the schema history.
	 */
	@Test
	void resetLeavesAnEmptyQueue() {
		this.flowControl.setLimit("mail", Limit.rate(1, Duration.ofHours(1)));
		this.flowControl.setKeyLimit("mail", "*", Limit.rate(1, Duration.ofHours(1)));
		try {
			ScheduleRecord schedule = this.schedules.find("tick").orElseThrow();
			int history = count(quoted("sqlqueue_schema_history"));
			Job unique = Job.of("mail.welcome", new Mail("unique@example.com")).uniqueKey("ada")
				.delay(Duration.ofHours(1));
			long first = this.jobs.enqueue(unique);
			long spends = this.jobs.enqueue(Job.of("mail.welcome", new Mail("a@example.com")).concurrencyKey("acme"));
			this.jobs.enqueue(Job.of("mail.welcome", new Mail("then@example.com")).after(spends));
			this.jobs.enqueue(Batch.of(List.of(Job.of("mail.welcome", new Mail("b1@example.com")),
					Job.of("mail.welcome", new Mail("b2@example.com")))).callback(Job.of("report.broken", "done")));
			assertThat(this.tester.runDue()).as("the rest waits for the spent rate").extracting(RanJob::id)
				.containsExactly(spends);
			assertThat(List.of(count("queue_batch"), count("queue_rate_window"))).containsOnly(1);

			this.tester.reset();

			assertThat(List.of(count("queue_job"), count("queue_dependency"), count("queue_batch"),
					count("queue_rate_window"))).containsOnly(0);
			assertThat(count(quoted("sqlqueue_schema_history"))).as("the schema history stays").isEqualTo(history);
			assertThat(this.schedules.find("tick")).as("the schedules stay, with their next due time")
				.hasValueSatisfying((kept) -> assertThat(kept.nextRunAt()).isEqualTo(schedule.nextRunAt()));
			assertThat(this.flowControl.limits("mail").isEmpty()).as("the limits stay").isFalse();

			long again = this.jobs.enqueue(unique);
			assertThat(again).as("the unique key is free again").isNotEqualTo(first);
			long next = this.jobs.enqueue(Job.of("mail.welcome", new Mail("b@example.com")).concurrencyKey("acme"));
			assertThat(this.tester.runDue()).as("the queue's and the key's rate are unspent")
				.extracting(RanJob::id).containsExactly(next);
		}
		finally {
			this.flowControl.removeKeyLimit("mail", "*");
			this.flowControl.removeLimit("mail");
		}
	}

	private int count(String table) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM " + table(table), Integer.class);
	}

	/** Waits until the database's clock reads past {@code instant} (on this machine, as this JVM's). */
	private static void waitUntilPast(Instant instant) throws InterruptedException {
		while (!Instant.now().isAfter(instant)) {
			Thread.sleep(20);
		}
	}

	/**
	 * The handler runs as on a worker of the Manager (the one attempt runner both use): its
	 * log lines carry the job's id, handler and attempt in the MDC, which is clear again after.
	 */
	@Test
	void aHandlerLogsWithItsAttemptInTheMdcAsOnAWorker() {
		long id = this.jobs.enqueue("report.logged", "now");

		RanJob ran = this.tester.run(id);

		assertThat(ran.result(String.class)).isEqualTo(id + "/report.logged/1");
		assertThat(MDC.get("sqlqueue.jobId")).isNull();
	}

	record Mail(String email) {
	}

	/** A recurring job every second, as an application has one. */
	static class Ticks {

		final List<Instant> scheduledFor = new CopyOnWriteArrayList<>();

		@JobHandler(value = "tick", queue = "clock", maxAttempts = 2)
		@Recurring(every = "1s", payload = "\"tock\"")
		String tick(String payload, JobContext context) {
			this.scheduledFor.add(context.scheduledFor());
			return payload;
		}

	}

	static class Mailer {

		final List<String> sent = new CopyOnWriteArrayList<>();

		final List<String> threads = new CopyOnWriteArrayList<>();

		@JobHandler(value = "mail.welcome", queue = "mail")
		String send(Mail mail) {
			this.sent.add(mail.email());
			this.threads.add(Thread.currentThread().getName());
			return "sent to " + mail.email();
		}

	}

	static class Signups {

		private final JobQueue jobs;

		Signups(JobQueue jobs) {
			this.jobs = jobs;
		}

		@JobHandler("signup.process")
		void process(Mail mail) {
			this.jobs.enqueue("mail.welcome", mail);
		}

	}

	static class Reports {

		@JobHandler(value = "report.flaky", maxAttempts = 3)
		int flaky(int failTimes, JobContext context) {
			if (context.attempt() <= failTimes) {
				throw new IllegalStateException("attempt " + context.attempt() + " of " + context.maxAttempts() + " fails");
			}
			return context.attempt();
		}

		@JobHandler("report.broken")
		void broken(String reason) {
			throw new NonRetryableException(reason);
		}

		/** What a log line of the handler would carry: its attempt in the MDC. */
		@JobHandler("report.logged")
		String logged(String payload) {
			return MDC.get("sqlqueue.jobId") + "/" + MDC.get("sqlqueue.handler") + "/" + MDC.get("sqlqueue.attempt");
		}

	}

	/** An order that is charged, waits for its payment's callback, sleeps a day, then mails. */
	static class Orders {

		final java.util.concurrent.atomic.AtomicInteger charges = new java.util.concurrent.atomic.AtomicInteger();

		@JobHandler("order.fulfil")
		String fulfil(String item, JobContext context) throws Exception {
			String receipt = context.step("charge", String.class, () -> "charged " + this.charges.incrementAndGet());
			String paid = context.awaitSignal("payment", String.class, Duration.ofHours(1)).orElse("no callback");
			context.sleep(Duration.ofDays(1));
			return item + ": " + receipt + ", " + paid;
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		Orders orders() {
			return new Orders();
		}

		@Bean
		Mailer mailer() {
			return new Mailer();
		}

		@Bean
		Signups signups(JobQueue jobs) {
			return new Signups(jobs);
		}

		@Bean
		Reports reports() {
			return new Reports();
		}

		@Bean
		Ticks ticks() {
			return new Ticks();
		}

	}

}
