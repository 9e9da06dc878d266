package io.sqlqueue.fault;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import io.sqlqueue.JobContext;
import io.sqlqueue.JobListener;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.JobInvoker;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.manager.ManagerSettings;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.dialect.Dialects;

/**
 * One application instance of the fault suite, in a JVM of its own so that it can be
 * killed, frozen and cut off like a real one: its own pool (named by
 * {@code ApplicationName}, so the test can terminate exactly its connections), a real
 * {@link Manager} with {@value #WORKERS} workers and a {@link Reaper}, wired as
 * {@code QueueFixture} wires them.
 * <p>
 * Both job handlers write an effect row (job, worker, attempt, time): {@value #PLAIN} in
 * autocommit before it returns, {@value #TRANSACTIONAL} inside its job's completing
 * transaction. A third, {@value #STEPS}, runs three durable steps that each write a row of
 * {@code fault_step_effect}: "a" and "c" plain (in autocommit), "b" transactional (its
 * effect commits with the step's record). The worker registers itself in
 * {@code fault_worker} when it runs, stops cleanly when its standard input closes, and
 * then records its lost leases there. It halts by itself after {@code max-life-ms}
 * whatever happens, so no test leaves it behind.
 * <p>
 * Arguments, as {@code key=value}: {@code url}, {@code user}, {@code schema}, {@code id},
 * and optionally {@code lease-ms} (3000), {@code tx-sleep-ms} (20), {@code max-life-ms}
 * (120000), {@code connection-timeout-ms} (10000, the pool's wait for a connection),
 * {@code unfenced} (false: see {@link UnfencedJobStore}) or
 * {@code pause-before-commit-ms} (none: see {@link PausingJobStore}). The password comes
 * from the environment variable {@value #PASSWORD_VARIABLE}.
 */
public final class FaultWorker {

	static final String PLAIN = "fault.plain";

	static final String TRANSACTIONAL = "fault.tx";

	static final String STEPS = "fault.steps";

	static final String QUEUE = "fault";

	static final int WORKERS = 8;

	/** Completion batch size: twice this many successes may wait to be recorded at once. */
	static final int COMPLETION_BATCH_SIZE = 8;

	static final String PASSWORD_VARIABLE = "FAULT_WORKER_PASSWORD";

	/** The handlers' work after their effect: short, but long enough that workers overlap. */
	private static final long PLAIN_SLEEP_MILLIS = 20;

	/** A step's work after its effect: a kill must often fall between the effect and the record. */
	private static final long STEP_SLEEP_MILLIS = 5;

	private FaultWorker() {
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> options = parse(args);
		String id = options.get("id");
		long maxLife = Long.parseLong(options.getOrDefault("max-life-ms", "120000"));
		haltAfter(maxLife);
		// Lease losses and reaps are what this process is for: keep them in its log.
		((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("io.sqlqueue"))
			.setLevel(ch.qos.logback.classic.Level.WARN);
		try (HikariDataSource pool = pool(options)) {
			String schema = options.get("schema");
			Dialect dialect = Dialects.detect(pool);
			JobStore store = store(options, pool, dialect, schema);
			JdbcTemplate jdbc = new JdbcTemplate(pool);
			long txSleep = Long.parseLong(options.getOrDefault("tx-sleep-ms", String.valueOf(PLAIN_SLEEP_MILLIS)));
			HandlerRegistry handlers = new HandlerRegistry();
			handlers.register(HandlerDefinition.of(PLAIN, QUEUE, effect(jdbc, id, PLAIN_SLEEP_MILLIS)));
			handlers.register(new HandlerDefinition(TRANSACTIONAL, QUEUE, null, null, Set.of(),
					effect(jdbc, id, txSleep), TRANSACTIONAL, true));
			handlers.register(HandlerDefinition.of(STEPS, QUEUE, steps(jdbc, id)));
			Duration lease = Duration.ofMillis(Long.parseLong(options.getOrDefault("lease-ms", "3000")));
			ManagerSettings settings = ManagerSettings.builder()
				.workerId(id)
				.pollInterval(Duration.ofMillis(50))
				.leaseDuration(lease)
				.heartbeatInterval(Duration.ofSeconds(1))
				.shutdownTimeout(Duration.ofSeconds(10))
				.defaultConcurrency(WORKERS)
				.completionBatchSize(COMPLETION_BATCH_SIZE)
				// A write that fails when a connection is cut retries soon; attempts are set per job.
				.retryPolicy(new RetryPolicy(20, Duration.ofMillis(50), 2.0, Duration.ofSeconds(1), 0.2))
				.build();
			Manager manager = new Manager(store, handlers, new PayloadCodec(
					tools.jackson.databind.json.JsonMapper.builder().build(), 4096), settings, scheduler("manager-"),
					executor());
			// Every job must survive the scenario's kills and freezes, so the crash budget is as
			// large as the attempts: this suite proves that nothing is lost, the conformance
			// suite that a job fails after its budget of crashes.
			Reaper reaper = new Reaper(store, scheduler("reaper-"), Duration.ofSeconds(1), 20,
					JobListener.NONE);
			manager.start();
			reaper.start();
			jdbc.update("INSERT INTO fault_worker (worker_id, pid, started_at) VALUES (?, ?, clock_timestamp())", id,
					ProcessHandle.current().pid());
			System.out.println("fault-worker " + id + " running");
			awaitEndOfInput(System.in);
			manager.stop();
			reaper.stop();
			long losses = manager.leaseLosses();
			jdbc.update("UPDATE fault_worker SET stopped_at = clock_timestamp(), lease_losses = ? WHERE worker_id = ?",
					losses, id);
			System.out.println("fault-worker " + id + " stopped leaseLosses=" + losses);
		}
		catch (Throwable ex) {
			ex.printStackTrace();
			System.exit(1);
		}
		System.exit(0);
	}

	private static JobStore store(Map<String, String> options, HikariDataSource pool, Dialect dialect,
			String schema) {
		if (Boolean.parseBoolean(options.getOrDefault("unfenced", "false"))) {
			return new UnfencedJobStore(pool, dialect, schema);
		}
		if (options.containsKey("pause-before-commit-ms")) {
			return new PausingJobStore(pool, dialect, schema,
					Duration.ofMillis(Long.parseLong(options.get("pause-before-commit-ms"))));
		}
		return new JobStore(pool, dialect, schema, ClaimMethod.UPDATE_RETURNING);
	}

	/** Writes the job's effect row, then works a moment; the same code for both handlers. */
	private static JobInvoker effect(JdbcTemplate jdbc, String worker, long sleepMillis) {
		return (String payload, JobContext context) -> {
			// When the handler began, by this host's clock (the database's host): a freeze that
			// falls between the start and the insert below must not look like a start after it.
			OffsetDateTime started = OffsetDateTime.now(ZoneOffset.UTC);
			// In a transactional handler this joins the job's completing transaction.
			jdbc.update("""
					INSERT INTO fault_effect (job_id, worker_id, attempt, at, started)
					VALUES (?, ?, ?, clock_timestamp(), CAST(? AS timestamptz))""", context.jobId(), worker,
					context.attempt(), started);
			Thread.sleep(sleepMillis);
			return null;
		};
	}

	/**
	 * Three steps, each writing its effect row then working a moment: what a kill interrupts
	 * between a step's effect and its record, and what a later run must replay, not redo.
	 */
	private static JobInvoker steps(JdbcTemplate jdbc, String worker) {
		return (String payload, JobContext context) -> {
			context.step("a", () -> stepEffect(jdbc, worker, context, "a"));
			// The JdbcTemplate joins the step's transaction: the effect commits with the record or not at all.
			context.transactionalStep("b", () -> stepEffect(jdbc, worker, context, "b"));
			context.step("c", () -> stepEffect(jdbc, worker, context, "c"));
			return null;
		};
	}

	private static void stepEffect(JdbcTemplate jdbc, String worker, JobContext context, String step)
			throws InterruptedException {
		jdbc.update("""
				INSERT INTO fault_step_effect (job_id, step, worker_id, attempt, at)
				VALUES (?, ?, ?, ?, clock_timestamp())""", context.jobId(), step, worker, context.attempt());
		Thread.sleep(STEP_SLEEP_MILLIS);
	}

	private static HikariDataSource pool(Map<String, String> options) {
		HikariConfig config = new HikariConfig();
		String url = options.get("url");
		config.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + options.get("id"));
		config.setUsername(options.get("user"));
		config.setPassword(System.getenv().getOrDefault(PASSWORD_VARIABLE, ""));
		config.setSchema(options.get("schema"));
		// A transactional handler holds a connection while it runs; the queue needs a few more.
		config.setMaximumPoolSize(WORKERS + 8);
		config.setConnectionTimeout(Long.parseLong(options.getOrDefault("connection-timeout-ms", "10000")));
		return new HikariDataSource(config);
	}

	private static ThreadPoolTaskScheduler scheduler(String prefix) {
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setPoolSize(2);
		scheduler.setThreadNamePrefix(prefix);
		scheduler.initialize();
		return scheduler;
	}

	private static ThreadPoolTaskExecutor executor() {
		ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
		executor.setCorePoolSize(WORKERS);
		executor.setMaxPoolSize(WORKERS);
		executor.setThreadNamePrefix("worker-");
		executor.initialize();
		return executor;
	}

	private static void awaitEndOfInput(InputStream input) throws IOException {
		byte[] buffer = new byte[256];
		while (input.read(buffer) != -1) {
			// Only the end matters.
		}
	}

	private static void haltAfter(long millis) {
		Thread timer = new Thread(() -> {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				return;
			}
			System.err.println("fault-worker lived " + millis + " ms; halting");
			Runtime.getRuntime().halt(3);
		}, "fault-worker-deadline");
		timer.setDaemon(true);
		timer.start();
	}

	private static Map<String, String> parse(String[] args) {
		Map<String, String> options = new HashMap<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			if (equals < 1) {
				throw new IllegalArgumentException("Expected key=value, got " + arg);
			}
			options.put(arg.substring(0, equals), arg.substring(equals + 1));
		}
		for (String required : new String[] { "url", "user", "schema", "id" }) {
			if (!options.containsKey(required)) {
				throw new IllegalArgumentException("Missing " + required + "=…");
			}
		}
		return options;
	}

}
