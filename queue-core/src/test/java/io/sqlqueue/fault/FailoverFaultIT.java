package io.sqlqueue.fault;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import io.sqlqueue.Job;
import io.sqlqueue.JobListener;
import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobRecord;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.DefaultJobQueue;
import io.sqlqueue.internal.flow.FlowClaim;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.manager.ManagerSettings;
import io.sqlqueue.internal.schema.QueueSchemaMigrator;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.postgresql.PostgresDialect;
import io.sqlqueue.internal.store.postgresql.PostgresNotifications;
import io.sqlqueue.test.EmbeddedReplication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A PostgreSQL failover under live workers: a primary and its synchronous standby from the
 * embedded binaries ({@link EmbeddedReplication}, never the machine's server), two Managers on
 * the multi-host URL ({@code targetServerType=primary&hostRecheckSeconds=1}) draining a few
 * thousand jobs, the primary killed mid-drain ({@code pg_ctl stop -m immediate}) and the standby
 * promoted, as an HA tool does. Claims commit without waiting for the standby, so a claim may
 * be lost with the primary: its jobs run again, but never on an instance that knew its lease
 * lost. What must hold: no job lost, no job whose success was recorded runs again, no attempt
 * starts after its instance found its lease lost, and the drain reaches zero. It prints the
 * outage, the time to resume and the extra runs (docs/high-availability.md).
 */
@Tag("fault")
class FailoverFaultIT {

	private static final int JOBS = 3_000;

	private static final String QUEUE = "failover";

	private static final Duration LEASE = Duration.ofSeconds(20);

	private static final Duration WAIT = Duration.ofSeconds(60);

	private EmbeddedReplication replication;

	private final List<AutoCloseable> closeables = new ArrayList<>();

	/** Every start of an attempt: instance, job id, lease token, when (nanoTime). */
	private final ConcurrentLinkedQueue<Start> starts = new ConcurrentLinkedQueue<>();

	/**
	 * When each instance found the lease of each attempt lost: key instance/job/lease token (not
	 * the attempt number: a claim lost with the primary leaves the job's count of attempts as it
	 * was, so the next claim of the job has the same number).
	 */
	private final Map<String, Long> lostAt = new ConcurrentHashMap<>();

	/** When each job's success was known recorded (the Manager's listener, after the write). */
	private final Map<Long, Long> recordedAt = new ConcurrentHashMap<>();

	private final AtomicInteger succeeded = new AtomicInteger();

	private final AtomicLong lastSuccessNanos = new AtomicLong();

	@AfterEach
	void stopEverything() throws Exception {
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
		if (this.replication != null) {
			this.replication.close();
		}
	}

	@Test
	void primaryKilledMidDrainLosesNoJobAndStartsNoAttemptKnownLost() throws Exception {
		this.replication = EmbeddedReplication
			.startSynchronous(Path.of("target", "embedded-databases", "failover").toAbsolutePath());
		String url = this.replication.failoverUrl();
		HikariDataSource observer = pool(url, "observer", 4);
		new QueueSchemaMigrator(observer, new PostgresDialect(), null).migrate();
		PayloadCodec codec = new PayloadCodec(tools.jackson.databind.json.JsonMapper.builder().build(), 4096);
		JobStore enqueuer = new JobStore(observer, new PostgresDialect(), null, ClaimMethod.UPDATE_RETURNING, null,
				FlowClaim::new);
		HandlerRegistry enqueueHandlers = new HandlerRegistry();
		enqueueHandlers.register(HandlerDefinition.of("work", QUEUE, (payload, context) -> null));
		new DefaultJobQueue(enqueuer, codec, enqueueHandlers, io.sqlqueue.handler.RetryPolicy.DEFAULT)
			.enqueueAll(IntStream.range(0, JOBS).mapToObj((i) -> Job.of("work", i).queue(QUEUE).maxAttempts(20)).toList());
		measureCommits(observer);
		Manager a = startManager("a", url, codec);
		Manager b = startManager("b", url, codec);

		await().atMost(WAIT).until(() -> this.succeeded.get() >= JOBS / 3);
		long killed = System.nanoTime();
		int doneAtKill = this.succeeded.get();
		this.replication.killPrimary();
		this.replication.promoteStandby();
		long promoted = System.nanoTime();
		await().atMost(WAIT).until(() -> this.lastSuccessNanos.get() > promoted);
		long resumed = this.lastSuccessNanos.get();

		JdbcTemplate jdbc = new JdbcTemplate(observer);
		await().atMost(WAIT).ignoreExceptions()
			.until(() -> jdbc.queryForObject("SELECT count(*) FROM queue_job WHERE status = 'SUCCEEDED'",
					Integer.class) == JOBS);
		long drained = System.nanoTime();
		a.stop();
		b.stop();

		Map<Long, List<Start>> byJob = new ConcurrentHashMap<>();
		this.starts.forEach((start) -> byJob.computeIfAbsent(start.jobId(), (id) -> new ArrayList<>()).add(start));
		List<String> startedKnownLost = this.starts.stream()
			.filter((start) -> {
				Long lost = this.lostAt.get(start.key());
				return lost != null && lost < start.nanos();
			})
			.map(Start::toString)
			.toList();
		List<String> ranAfterRecorded = this.starts.stream()
			.filter((start) -> {
				Long recorded = this.recordedAt.get(start.jobId());
				return recorded != null && recorded < start.nanos();
			})
			.map(Start::toString)
			.toList();
		long extraRuns = byJob.values().stream().mapToLong((runs) -> runs.size() - 1).sum();
		System.out.printf(
				"FailoverFaultIT: %d jobs, %d done at the kill; kill and promotion %d ms; first success after it "
						+ "%d ms after the kill; drained %d ms after the kill; extra runs %d; leases found lost %d "
						+ "(a %d, b %d); a job per worker in hand at the kill: %d workers%n",
				JOBS, doneAtKill, millis(promoted - killed), millis(resumed - killed), millis(drained - killed),
				extraRuns, this.lostAt.size(), a.leaseLosses(), b.leaseLosses(), 2 * 4);
		assertThat(byJob).as("every job ran").hasSize(JOBS);
		assertThat(jdbc.queryForObject("SELECT count(*) FROM queue_job WHERE status <> 'SUCCEEDED'", Integer.class))
			.as("jobs not succeeded").isZero();
		assertThat(startedKnownLost).as("attempts started after their lease was found lost").isEmpty();
		assertThat(ranAfterRecorded).as("jobs run again after their success was recorded").isEmpty();
	}

	/**
	 * A primary that is demoted but keeps its sessions (made read-only here, as a primary
	 * turned standby or a writer turned reader is) while the standby is promoted: the Manager's
	 * pooled connections to it fail every claim with SQLState 25006, which HikariCP does not
	 * treat as fatal; the queue drops them ({@code DemotedServers}), so the next ones go to the
	 * new primary and its jobs run; so does the LISTEN connection, which then hears the new
	 * primary's notifications.
	 */
	@Test
	void demotedPrimaryKeepsNoInstanceStuckOnIt() throws Exception {
		this.replication = EmbeddedReplication
			.start(Path.of("target", "embedded-databases", "demoted").toAbsolutePath());
		String url = this.replication.failoverUrl();
		HikariDataSource observer = pool(url, "observer", 4);
		new QueueSchemaMigrator(observer, new PostgresDialect(), null).migrate();
		PayloadCodec codec = new PayloadCodec(tools.jackson.databind.json.JsonMapper.builder().build(), 4096);
		DefaultJobQueue queue = queue(observer, codec);
		Set<String> notified = ConcurrentHashMap.newKeySet();
		PostgresNotifications notifications = new PostgresNotifications(pool(url, "listener", 2), "failover_it",
				notified::addAll, (task) -> new Thread(task, "failover-listen").start());
		notifications.start();
		this.closeables.add(0, notifications::stop);
		startManager("a", url, codec);
		queue.enqueueAll(IntStream.range(0, 50).mapToObj((i) -> Job.of("work", i).queue(QUEUE)).toList());
		await().atMost(WAIT).until(() -> this.succeeded.get() == 50);

		JdbcTemplate primary = new JdbcTemplate(observer);
		primary.execute("ALTER SYSTEM SET default_transaction_read_only = on");
		primary.execute("SELECT pg_reload_conf()");
		this.replication.promoteStandby();
		// The observer's own pooled connections are the old primary's too: its enqueue is tried until
		// one lands on the new primary.
		await().atMost(WAIT).ignoreExceptions().until(() -> {
			queue.enqueueAll(IntStream.range(50, 100).mapToObj((i) -> Job.of("work", i).queue(QUEUE)).toList());
			return true;
		});
		await().atMost(WAIT).until(() -> this.succeeded.get() == 100);
		// LISTEN follows the new primary: its connection to the old one finds it read-only and is dropped.
		JdbcTemplate promoted = new JdbcTemplate(
				new org.springframework.jdbc.datasource.SingleConnectionDataSource(
						this.replication.standbyUrl() + "?user=postgres", true));
		await().atMost(WAIT).until(() -> {
			promoted.queryForObject("SELECT pg_notify('failover_it', 'after-promotion')::text", String.class);
			return notified.contains("after-promotion");
		});
	}

	private static DefaultJobQueue queue(HikariDataSource pool, PayloadCodec codec) {
		JobStore store = new JobStore(pool, new PostgresDialect(), null, ClaimMethod.UPDATE_RETURNING, null,
				FlowClaim::new);
		HandlerRegistry handlers = new HandlerRegistry();
		handlers.register(HandlerDefinition.of("work", QUEUE, (payload, context) -> null));
		return new DefaultJobQueue(store, codec, handlers, io.sqlqueue.handler.RetryPolicy.DEFAULT);
	}

	/**
	 * What a claim's commit would cost if it waited for the synchronous standby: a claim-sized
	 * write (one row updated, returned) committed with {@code synchronous_commit} off, as claims
	 * are, and on, as every other write of the queue is. Printed for docs/high-availability.md.
	 */
	private void measureCommits(HikariDataSource pool) {
		JdbcTemplate jdbc = new JdbcTemplate(pool);
		jdbc.execute("CREATE TABLE commit_probe (id int PRIMARY KEY, n bigint NOT NULL)");
		jdbc.execute("INSERT INTO commit_probe VALUES (1, 0)");
		StringBuilder figures = new StringBuilder("FailoverFaultIT: a claim-sized commit, mean of 500:");
		List<String> settings = List.of("off", "on", "off", "on");
		for (int round = 0; round < settings.size(); round++) {
			String setting = settings.get(round);
			String statement = "WITH s AS MATERIALIZED (SELECT set_config('synchronous_commit', '" + setting
					+ "', true)) UPDATE commit_probe SET n = n + 1 FROM s WHERE id = 1 RETURNING n";
			long started = System.nanoTime();
			for (int i = 0; i < 500; i++) {
				jdbc.queryForObject(statement, Long.class);
			}
			// The first two rounds warm the connection and the server up: not printed.
			if (round >= 2) {
				figures.append(" ").append(setting).append(" ")
					.append(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - started) / 500).append(" µs");
			}
		}
		System.out.println(figures);
	}

	private Manager startManager(String name, String url, PayloadCodec codec) {
		HikariDataSource pool = pool(url, name, 10);
		JobStore store = new JobStore(pool, new PostgresDialect(), null, ClaimMethod.UPDATE_RETURNING, null,
				FlowClaim::new);
		HandlerRegistry handlers = new HandlerRegistry();
		handlers.register(HandlerDefinition.of("work", QUEUE, (payload, context) -> {
			TimeUnit.MILLISECONDS.sleep(5);
			return null;
		}));
		ManagerSettings settings = ManagerSettings.builder()
			.workerId("failover-" + name)
			.pollInterval(Duration.ofMillis(50))
			.leaseDuration(LEASE)
			.heartbeatInterval(Duration.ofSeconds(1))
			.shutdownTimeout(Duration.ofSeconds(5))
			.defaultConcurrency(4)
			.build();
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setPoolSize(2);
		scheduler.setThreadNamePrefix("failover-" + name + "-scheduler-");
		scheduler.initialize();
		ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
		executor.setCorePoolSize(8);
		executor.setMaxPoolSize(8);
		executor.setThreadNamePrefix("failover-" + name + "-worker-");
		executor.initialize();
		Manager manager = new Manager(store, handlers, codec, settings, scheduler, executor, listener(name));
		this.closeables.add(0, executor::shutdown);
		this.closeables.add(0, scheduler::shutdown);
		this.closeables.add(0, manager::stop);
		manager.start();
		return manager;
	}

	private JobListener listener(String name) {
		return new JobListener() {
			@Override
			public void started(JobRecord job, Duration waited) {
				FailoverFaultIT.this.starts.add(new Start(name, job.id(), token(job), System.nanoTime()));
			}

			@Override
			public void finished(JobRecord job, JobOutcome outcome, Duration took) {
				if (outcome == JobOutcome.SUCCEEDED) {
					FailoverFaultIT.this.recordedAt.putIfAbsent(job.id(), System.nanoTime());
					FailoverFaultIT.this.succeeded.incrementAndGet();
					FailoverFaultIT.this.lastSuccessNanos.set(System.nanoTime());
				}
			}

			@Override
			public void leaseLost(JobRecord job) {
				FailoverFaultIT.this.lostAt.putIfAbsent(key(name, job.id(), token(job)), System.nanoTime());
			}
		};
	}

	private HikariDataSource pool(String url, String name, int size) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url + "&ApplicationName=failover-" + name);
		config.setUsername("postgres");
		config.setMaximumPoolSize(size);
		// A failover is over in seconds here: a caller waits at most this for a connection.
		config.setConnectionTimeout(3_000);
		config.setValidationTimeout(1_000);
		HikariDataSource pool = new HikariDataSource(config);
		this.closeables.add(pool);
		return pool;
	}

	private static String key(String instance, long jobId, long token) {
		return instance + "/" + jobId + "/" + token;
	}

	private static long token(JobRecord job) {
		Long token = job.leaseToken();
		return (token != null) ? token : 0;
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	private record Start(String instance, long jobId, long token, long nanos) {

		String key() {
			return FailoverFaultIT.key(this.instance, this.jobId, this.token);
		}

	}

}
