package io.sqlqueue.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import tools.jackson.databind.JavaType;

import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.manager.JobRunner;
import io.sqlqueue.internal.store.Backlog;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.QueueReset;
import io.sqlqueue.schedule.FiredTick;
import io.sqlqueue.schedule.ScheduleRecord;
import io.sqlqueue.schedule.Schedules;

/**
 * Jobs in an application's tests: what was enqueued, and running it on the test's thread.
 * With {@code queue-test} on the class path the Manager does not start, so a job waits in
 * the table until the test runs it — on the test's real database, through the same claim,
 * lease and fenced writes as in production (see {@link JobRunner}):
 *
 * <pre>{@code
 * @Autowired SqlQueueTester jobs;
 *
 * signups.signUp("ada@example.com", "Ada");
 * WelcomeMail mail = jobs.assertEnqueued("mail.welcome", WelcomeMail.class).get(0);
 * List<RanJob> ran = jobs.runDue();               // every due job, in run order, here
 * assertThat(ran).allMatch(RanJob::succeeded);
 * }</pre>
 *
 * Only jobs whose handler the application has are run; a job that fails is retried with
 * the application's retry policy, so its next attempt waits for the backoff: run it with
 * {@link #runDue(boolean) runDue(true)}, {@link #runUntilSettled()} or {@link #run(long)}.
 * <p>
 * Schedules do not fire by themselves under the test kit (however long the tests take, no
 * tick enqueues a job into a test that did not ask for it): a test runs a schedule's job
 * with {@link #runSchedule(String)}, or fires the due ones with {@link #fireDueSchedules()}.
 * {@link #reset()} empties the queue between tests.
 * <p>
 * The tests need a database of their own: where an instance that is not a test runs on the
 * same database (the development application, say), the test's context does not start
 * ({@link #requireADatabaseOfItsOwn()}), and {@link #reset()} and every call that runs jobs
 * refuse, with an {@link IllegalStateException} that names it, since its Manager would claim
 * the tests' jobs and a reset would delete its own.
 * <p>
 * A job with durable steps (docs/durable-steps.md) runs to its next park: {@link #run(long)}
 * returns {@code PARKED}; {@link #signal} delivers what it waits for, and {@link #wakeUp}
 * ends its sleep without waiting.
 */
public class SqlQueueTester {

	/** The most attempts one call runs: a guard against jobs that enqueue jobs forever. */
	public static final int MAX_ATTEMPTS_PER_CALL = 10_000;

	/**
	 * The end of the worker id of a Manager the test kit lets run in the background
	 * ({@code sqlqueue.test.run-in-background}): its row in {@code queue_instance} says it is
	 * a test, so another test JVM on the same database does not refuse to work beside it.
	 */
	public static final String TEST_INSTANCE_SUFFIX = "-sqlqueue-test";

	private static final int BATCH = 100;

	private final JobStore store;

	private final HandlerRegistry handlers;

	private final PayloadCodec codec;

	private final JobRunner runner;

	private final Schedules schedules;

	private final QueueReset reset;

	private final JobQueue jobs;

	private final LiveInstances liveInstances;

	public SqlQueueTester(JobStore store, HandlerRegistry handlers, PayloadCodec codec, JobRunner runner,
			Schedules schedules, QueueReset reset, JobQueue jobs) {
		this.store = store;
		this.jobs = jobs;
		this.handlers = handlers;
		this.codec = codec;
		this.runner = runner;
		this.schedules = schedules;
		this.reset = reset;
		this.liveInstances = new LiveInstances(store.cluster());
	}

	/**
	 * Refuses, as {@link #reset()} does, where an instance that is not a test is live on this
	 * database. The test kit's auto-configuration calls it as the test's context starts: before
	 * that context declares its schedules and limits in the database, where the running
	 * application would fire the schedules for handlers it may not have.
	 * @throws IllegalStateException naming each live instance that is not a test
	 */
	public void requireADatabaseOfItsOwn() {
		this.liveInstances.refuseIfAnyIsNotATest("start the test's application context");
	}

	/**
	 * Empties the queue, for the next test: deletes every job (whatever its state and
	 * handler), the jobs' dependency edges and batches, and the rate limits' spent windows.
	 * The schedules (with their next due times) and the limits the application declared stay,
	 * and so does the schema. Call it when no job runs, as under the test kit by default:
	 * a job a background Manager runs meanwhile ends with nothing left to write to.
	 * @throws IllegalStateException, deleting nothing, when an instance that is not a test
	 * (an application pointed at the same database) is running: give the tests a database
	 * of their own (docs/testing.md)
	 */
	public void reset() {
		this.liveInstances.refuseIfAnyIsNotATest("reset the queue");
		this.reset.reset();
	}

	/**
	 * Runs the schedule's job now, on this thread: enqueued as a tick of the schedule enqueues
	 * it (the stored payload, queue, priority, attempts, expiry and concurrency key; its
	 * {@code JobContext.scheduledFor()} is now), then run as {@link #run(long)} runs a job.
	 * The schedule's next due time stays. Jobs that the job enqueues wait for
	 * {@link #runDue()}.
	 * @throws IllegalArgumentException when there is no schedule of that name
	 */
	public RanJob runSchedule(String name) {
		refuseBesideLiveInstances();
		if (this.schedules.find(name).isEmpty()) {
			throw new IllegalArgumentException("No schedule named '" + name + "'; the schedules are "
					+ this.schedules.list().stream().map(ScheduleRecord::name).toList()
					+ " (@Recurring and sqlqueue.schedules.* are declared at start-up where the Manager is enabled)");
		}
		return run(this.schedules.trigger(name));
	}

	/**
	 * Fires the schedules that are due, as a pass of the schedule firer does in production
	 * (their misfire and overlap policies apply, and each moves on to its next tick), and
	 * returns the ticks handled; the jobs they enqueued wait for {@link #runDue()}. Under the
	 * test kit no firer runs, so a schedule is due once its next tick has passed since start-up
	 * or since its last firing.
	 */
	public List<FiredTick> fireDueSchedules() {
		return this.schedules.fireDue();
	}

	/**
	 * The jobs of this handler waiting to run, oldest first: {@code QUEUED} (due, delayed or
	 * waiting for a retry) and {@code WAITING} (for the jobs they run after), since a test that
	 * enqueued a workflow expects to find all its steps.
	 */
	public List<JobRecord> enqueued(String handler) {
		List<JobRecord> waiting = new ArrayList<>(
				this.store.findByHandler(handler, JobStatus.QUEUED, MAX_ATTEMPTS_PER_CALL));
		waiting.addAll(this.store.findByHandler(handler, JobStatus.WAITING, MAX_ATTEMPTS_PER_CALL));
		waiting.sort(Comparator.comparingLong(JobRecord::id));
		return waiting;
	}

	/**
	 * The payloads of the jobs of this handler waiting to run, decoded as {@code type}, oldest
	 * first: strictly, as the handler will decode them, unless it is
	 * {@code @JobHandler(lenientPayload = true)}, so a payload of the wrong shape fails here.
	 */
	public <T> List<T> enqueued(String handler, Class<T> type) {
		JavaType javaType = this.codec.type(type);
		boolean lenient = this.handlers.find(handler).map(HandlerDefinition::lenientPayload).orElse(false);
		List<T> payloads = new ArrayList<>();
		for (JobRecord job : enqueued(handler)) {
			payloads.add(type.cast(this.codec.decode(job.payload(), javaType, handler, lenient)));
		}
		return payloads;
	}

	/**
	 * Asserts that at least one job of this handler waits to run, and returns the payloads of
	 * all that do, decoded as {@code type}, oldest first.
	 * @throws AssertionError naming what does wait, when none of this handler does
	 */
	public <T> List<T> assertEnqueued(String handler, Class<T> type) {
		List<T> payloads = enqueued(handler, type);
		if (payloads.isEmpty()) {
			throw new AssertionError("Expected a queued job of handler '" + handler + "', but there is none; "
					+ describeQueued());
		}
		return payloads;
	}

	/**
	 * Asserts that no job of this handler waits to run.
	 * @throws AssertionError listing the ones that do
	 */
	public void assertNotEnqueued(String handler) {
		List<JobRecord> queued = enqueued(handler);
		if (!queued.isEmpty()) {
			throw new AssertionError("Expected no queued job of handler '" + handler + "', but there are "
					+ queued.size() + ": " + queued.stream().map((job) -> job.id() + " " + job.payload()).toList());
		}
	}

	/**
	 * Runs every due job of the application's handlers on this thread — queue by queue, the
	 * one with the oldest due job first, and in each in run order (priority, due time, id) —
	 * and then those that became due meanwhile (jobs the handlers enqueued, jobs released by the
	 * success of the jobs they ran after), until none is due. Delayed jobs, and failed ones waiting for their backoff,
	 * stay queued. Returns every attempt's outcome, in the order they ran.
	 */
	public List<RanJob> runDue() {
		return runDue(false);
	}

	/**
	 * As {@link #runDue()}; with {@code includeDelayed}, the delayed jobs of the application's
	 * handlers (a delay, a run time ahead, a retry's backoff, a durable sleep) are made due
	 * first (their {@code run_at} and sleeps' ends set to now, on the database's clock). A job
	 * waiting for a signal runs and parks again: send it with {@link #signal}.
	 */
	public List<RanJob> runDue(boolean includeDelayed) {
		refuseBesideLiveInstances();
		if (includeDelayed) {
			this.store.steps().endWaitsOf(this.handlers.names(), false);
			this.store.makeDue(this.handlers.names());
		}
		List<RanJob> ran = new ArrayList<>();
		while (runOnePass(ran)) {
			// Jobs the handlers enqueued, or retried without a backoff, may be due now.
		}
		return ran;
	}

	/**
	 * Runs until no job of the application's handlers waits: each pass makes the delayed
	 * ones (failed ones waiting to be retried, sleeping ones) due and runs them, and ends the
	 * waits for signals (they time out), so every job ends {@code SUCCEEDED}, {@code FAILED}
	 * or {@code CANCELLED}. Returns every attempt's outcome,
	 * retries included, in the order they ran.
	 */
	public List<RanJob> runUntilSettled() {
		refuseBesideLiveInstances();
		List<RanJob> ran = new ArrayList<>();
		do {
			this.store.steps().endWaitsOf(this.handlers.names(), true);
			this.store.makeDue(this.handlers.names());
		}
		while (runOnePass(ran));
		return ran;
	}

	/**
	 * Runs the queued job of this id now, on this thread, whether it is due or not.
	 * @throws IllegalArgumentException when it is not queued (finished, running, or no such
	 * job), or the application has no handler for it
	 * @throws IllegalStateException when another job of its group is running
	 */
	public RanJob run(long id) {
		refuseBesideLiveInstances();
		JobRunner.Ran ran = this.runner.run(id)
			.orElseThrow(() -> new IllegalArgumentException("Job " + id + " is not queued: it is "
					+ this.store.find(id).map((job) -> job.status().name()).orElse("not there (no such job)")));
		return ranJob(ran, this.store.find(id).orElse(ran.job()));
	}

	/**
	 * Sends the job a signal (docs/durable-steps.md#signals), as {@code JobQueue.signal}
	 * does, which makes the job due if it was parked waiting for it; run it next with
	 * {@link #run(long)} or {@link #runDue()}.
	 */
	public void signal(long id, String name, Object payload) {
		this.jobs.signal(id, name, payload);
	}

	/**
	 * Ends the durable sleeps of this parked job now, on the database's clock, and makes it
	 * due, as if its time had come: run it next with {@link #run(long)} or {@link #runDue()}.
	 * Its waits for signals keep waiting ({@link #signal} them, or let
	 * {@link #runUntilSettled()} time them out).
	 * @throws IllegalArgumentException when the job is not queued
	 */
	public void wakeUp(long id) {
		if (!this.store.steps().wakeUp(id)) {
			throw new IllegalArgumentException("Job " + id + " is not queued: it is "
					+ this.store.find(id).map((job) -> job.status().name()).orElse("not there (no such job)"));
		}
	}

	/** Jobs are not run where another application's Manager would claim them too. */
	private void refuseBesideLiveInstances() {
		this.liveInstances.refuseIfAnyIsNotATest("run jobs");
	}

	/** Claims and runs what is due now in every queue that has due jobs of our handlers; false when nothing was. */
	private boolean runOnePass(List<RanJob> ran) {
		Map<String, Duration> oldest = new LinkedHashMap<>();
		Set<String> names = Set.copyOf(this.handlers.names());
		for (Backlog backlog : this.store.dueBacklog()) {
			if (names.contains(backlog.handler())) {
				oldest.merge(backlog.queue(), backlog.oldestAge(), (a, b) -> (a.compareTo(b) >= 0) ? a : b);
			}
		}
		List<String> queues = oldest.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Duration>comparingByValue().reversed())
			.map(Map.Entry::getKey)
			.toList();
		boolean any = false;
		for (String queue : queues) {
			List<JobRunner.Ran> attempts;
			do {
				attempts = this.runner.runDue(queue, BATCH);
				any |= !attempts.isEmpty();
				Map<Long, JobRecord> after = new LinkedHashMap<>();
				this.store.findAll(attempts.stream().map((attempt) -> attempt.job().id()).collect(Collectors.toSet()))
					.forEach((job) -> after.put(job.id(), job));
				for (JobRunner.Ran attempt : attempts) {
					ran.add(ranJob(attempt, after.getOrDefault(attempt.job().id(), attempt.job())));
				}
				if (ran.size() > MAX_ATTEMPTS_PER_CALL) {
					throw new IllegalStateException("Ran more than " + MAX_ATTEMPTS_PER_CALL + " attempts in one call: do "
							+ "the handlers enqueue jobs without end? Last: " + ran.get(ran.size() - 1));
				}
			}
			while (attempts.size() == BATCH);
		}
		return any;
	}

	private RanJob ranJob(JobRunner.Ran ran, JobRecord after) {
		return new RanJob(after, ran.job().attempts(), ran.outcome(), this.codec);
	}

	private String describeQueued() {
		Map<String, Long> byHandler = new LinkedHashMap<>();
		for (String handler : this.handlers.names()) {
			int queued = enqueued(handler).size();
			if (queued > 0) {
				byHandler.put(handler, (long) queued);
			}
		}
		return byHandler.isEmpty() ? "no job of this application's handlers is queued"
				: "queued jobs by handler: " + byHandler;
	}

}
