package io.sqlqueue.fault;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.parallel.ResourceLock;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.Job;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What every fault scenario shares: a fresh schema on PostgreSQL with the queue's table and
 * the fault suite's own ({@link FaultSchema}), jobs of both handlers, worker JVMs that are
 * always killed at the end, and the {@link FaultChecker}'s verdict.
 * <p>
 * Waits are bounded and generous (the box may be loaded); no sleep is an assertion. The
 * suite alone: {@code ./mvnw -pl queue-core verify -Dgroups=fault}; the workers' logs are in
 * {@code target/fault-logs}.
 */
@Tag("fault")
@ResourceLock(TestDatabase.POSTGRESQL_SERVER)
abstract class FaultScenario {

	/** Added to from the awaiting thread too ({@link #keepQueued} in a wait's condition). */
	private final AtomicInteger enqueued = new AtomicInteger();

	/** Enough for a drain of a few thousand jobs on a loaded box, well within a worker's life. */
	static final Duration DRAIN_WAIT = Duration.ofSeconds(90);

	/** A worker halts by itself after this, whatever the test does. */
	private static final Duration WORKER_LIFE = Duration.ofSeconds(150);

	/** Re-runs after a kill or a freeze burn attempts; no job may fail for want of them. */
	private static final int MAX_ATTEMPTS = 20;

	protected TestDatabase.Isolated database;

	protected JdbcTemplate jdbc;

	protected QueueFixture fixture;

	private String runId;

	private Path logs;

	private final List<WorkerProcess> workers = new ArrayList<>();

	@BeforeEach
	void createSchema(TestInfo test) {
		this.database = TestDatabase.POSTGRESQL.isolated();
		this.fixture = new QueueFixture(this.database, ClaimMethod.UPDATE_RETURNING,
				new PayloadCodec(tools.jackson.databind.json.JsonMapper.builder().build(), 4096));
		this.jdbc = this.fixture.jdbc();
		FaultSchema.install(this.jdbc, this.database.schema());
		// Worker ids name their connections too: unique per run, so that no other run's are hit.
		this.runId = this.database.schema().substring(this.database.schema().length() - 6);
		this.logs = Path.of("target", "fault-logs",
				getClass().getSimpleName() + "-" + test.getTestMethod().map((m) -> m.getName()).orElse("test"));
	}

	@AfterEach
	void killWorkersAndDropSchema() throws Exception {
		for (WorkerProcess worker : this.workers) {
			worker.close();
		}
		if (this.fixture != null) {
			this.fixture.close();
		}
		if (this.database != null) {
			this.database.close();
		}
	}

	/** The handlers of the jobs {@link #enqueue} adds, in turn: plain and transactional, unless a scenario says otherwise. */
	protected List<String> handlers() {
		return List.of(FaultWorker.PLAIN, FaultWorker.TRANSACTIONAL);
	}

	/** Enqueues {@code count} jobs, of each of the {@link #handlers} in turn. */
	protected void enqueue(int count) {
		List<String> handlers = handlers();
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			String handler = handlers.get(i % handlers.size());
			jobs.add(Job.of(handler, i).queue(FaultWorker.QUEUE).maxAttempts(MAX_ATTEMPTS));
		}
		this.fixture.queue().enqueueAll(jobs);
		this.enqueued.addAndGet(count);
	}

	/** The jobs this scenario enqueued in all: what the drain waits for and the checks count. */
	protected int enqueued() {
		return this.enqueued.get();
	}

	/**
	 * Enqueues {@code count} more jobs when fewer than that are still queued. A scenario that
	 * waits for one worker to reach a state (run jobs, stand between a write and its commit)
	 * while another worker drains the queue must keep work there until it does: on a loaded
	 * machine a worker's JVM starts slowly, and the other drained everything first (seen twice
	 * in CI).
	 */
	protected void keepQueued(int count) {
		if (queued() < count) {
			enqueue(count);
		}
	}

	/** Starts a worker JVM named {@code name} in this run and waits until it serves the queue. */
	protected WorkerProcess startWorker(String name, String... options) throws IOException {
		List<String> all = new ArrayList<>(List.of(options));
		all.add("max-life-ms=" + WORKER_LIFE.toMillis());
		WorkerProcess worker = WorkerProcess.start(workerId(name), this.database, this.logs,
				all.toArray(String[]::new));
		this.workers.add(worker);
		await("start of " + worker).atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> {
				assertThat(worker.isAlive()).as(() -> worker + " died at start:\n" + worker.log()).isTrue();
				return count("SELECT count(*) FROM fault_worker WHERE worker_id = ?", worker.id()) == 1;
			});
		return worker;
	}

	protected String workerId(String name) {
		return applicationNamePrefix() + name;
	}

	/** What every worker of this run names its connections with, and nothing else does. */
	protected String applicationNamePrefix() {
		return "fault-" + this.runId + "-";
	}

	/** Records a fault on the database's clock, for the checker. */
	protected void event(String kind, WorkerProcess worker) {
		this.jdbc.update("INSERT INTO fault_event (kind, worker_id) VALUES (?, ?)", kind,
				(worker != null) ? worker.id() : null);
	}

	protected int effectsBy(WorkerProcess worker) {
		return count("SELECT count(*) FROM fault_effect WHERE worker_id = ?", worker.id());
	}

	protected int effects() {
		return count("SELECT count(*) FROM fault_effect");
	}

	protected int runningHeldBy(WorkerProcess worker) {
		return count("SELECT count(*) FROM queue_job WHERE status = 'RUNNING' AND lease_owner = ?", worker.id());
	}

	protected int queued() {
		return count("SELECT count(*) FROM queue_job WHERE status = 'QUEUED'");
	}

	/** Waits, polling the database, for {@code condition}; a failed poll (server restarting) is tried again. */
	protected void awaitUntil(String what, Duration atMost, Callable<Boolean> condition) {
		try {
			poll(what, atMost).until(condition);
		}
		catch (ConditionTimeoutException ex) {
			throw new AssertionError(ex.getMessage() + "\n" + diagnostics(), ex);
		}
	}

	/** The run's jobs by status and its workers' sessions: what a timed-out wait leaves to read. */
	protected String diagnostics() {
		try {
			return "Jobs: " + this.jdbc.queryForList("""
					SELECT status || ' ' || coalesce(lease_owner, '-') || ': ' || count(*)
					FROM queue_job GROUP BY status, lease_owner ORDER BY 1""", String.class)
					+ "\nSessions:\n" + String.join("\n", this.jdbc.queryForList("""
							SELECT application_name || ' pid ' || pid || ' ' || coalesce(state, '-') || ' wait '
							       || coalesce(wait_event_type || '/' || wait_event, '-') || ' blocked by '
							       || CAST(pg_blocking_pids(pid) AS text) || ': ' || left(query, 120)
							FROM pg_stat_activity WHERE application_name LIKE ? ORDER BY application_name, pid""",
							String.class, applicationNamePrefix() + "%"));
		}
		catch (RuntimeException ex) {
			return "(no diagnostics: " + ex + ")";
		}
	}

	protected ConditionFactory poll(String what, Duration atMost) {
		return await(what).atMost(atMost).pollInterval(Duration.ofMillis(50)).ignoreExceptions();
	}

	protected void awaitDrained(int jobs) {
		awaitUntil("all " + jobs + " jobs succeeded", DRAIN_WAIT,
				() -> count("SELECT count(*) FROM queue_job WHERE status = 'SUCCEEDED'") == jobs);
	}

	/** Stops every live worker cleanly; each must exit 0. */
	protected void stopWorkers() throws IOException, InterruptedException {
		for (WorkerProcess worker : this.workers) {
			if (worker.isAlive()) {
				assertThat(worker.stop()).as(() -> worker + " exit code; its log:\n" + worker.log()).isZero();
			}
		}
	}

	/** The checker's verdict on this run, its numbers printed for the test report. */
	protected FaultChecker.Report check(int jobs) {
		FaultChecker.Report report = new FaultChecker(this.jdbc).check(jobs);
		System.out.println(getClass().getSimpleName() + ": " + report.numbers());
		report.violations().forEach((violation) -> System.out.println("  violation " + violation));
		return report;
	}

	protected int count(String query, Object... args) {
		Integer count = this.jdbc.queryForObject(query, Integer.class, args);
		return (count != null) ? count : 0;
	}

}
