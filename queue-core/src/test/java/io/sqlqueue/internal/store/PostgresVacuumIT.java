package io.sqlqueue.internal.store;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobStatus;
import io.sqlqueue.internal.maintenance.Vacuumer;
import io.sqlqueue.internal.schema.QueueSchemaMigrator;
import io.sqlqueue.test.OpenTransaction;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The queue knows whether PostgreSQL vacuums its table, and vacuums it itself when it does not.
 */
@ResourceLock(TestDatabase.POSTGRESQL_SERVER)
class PostgresVacuumIT {

	private TestDatabase.Isolated database;

	private JobStore store;

	private JdbcTemplate jdbc;

	@BeforeEach
	void setUp() {
		this.database = TestDatabase.POSTGRESQL.isolated();
		new QueueSchemaMigrator(this.database.dataSource(), this.database.dialect(), this.database.schema()).migrate();
		this.store = new JobStore(this.database.dataSource(), this.database.dialect(), this.database.schema());
		this.jdbc = new JdbcTemplate(this.database.dataSource());
	}

	@AfterEach
	void tearDown() {
		this.database.close();
	}

	@Test
	void needsItsOwnVacuumExactlyWhenAutovacuumIsOffForTheTable() {
		boolean serverOff = "off".equals(this.jdbc.queryForObject("SHOW autovacuum", String.class));
		assertThat(this.store.needsOwnVacuum()).isEqualTo(serverOff);
		this.jdbc.execute("ALTER TABLE queue_job SET (autovacuum_enabled = false)");
		assertThat(this.store.needsOwnVacuum()).isTrue();
	}

	@Test
	void vacuumReclaimsTheDeadRowsOfClaimsAndCompletions() {
		this.store.insert(List.of(new NewJob("default", "work", "{}", 0, null, 0, 3, null, null),
				new NewJob("default", "work", "{}", 0, null, 0, 3, null, null)));
		List<io.sqlqueue.JobRecord> claimed = this.store
			.claim(new ClaimRequest("w", "default", List.of("work"), 10, 30_000));
		this.store.complete(claimed.stream()
			.map((job) -> new Completion(new Lease(job.id(), job.leaseToken()), null))
			.toList());
		vacuumOnce();
		assertVacuumed("queue_job");
	}

	/**
	 * A limited queue's claims rewrite its flow row and its keys' windows, settling and pruning
	 * delete edges and batches, fires rewrite schedules: those tables are the queue's to vacuum too.
	 */
	@Test
	void vacuumReclaimsTheDeadRowsOfFlowControlsTables() {
		this.jdbc.update("INSERT INTO queue_flow (queue) VALUES ('default')");
		this.jdbc.update("INSERT INTO queue_rate_window (queue, concurrency_key, window_start, window_starts, "
				+ "previous_starts, expires_at) VALUES ('default', 'customer:1', 0, 0, 0, 0)");
		this.jdbc.update("INSERT INTO queue_fair_key (queue, fair_key, pass, window_start, window_starts, "
				+ "previous_starts) VALUES ('default', 'customer:1', 0, 0, 0, 0)");
		for (int claim = 1; claim <= 50; claim++) {
			this.jdbc.update("UPDATE queue_flow SET window_starts = ? WHERE queue = 'default'", claim);
			this.jdbc.update("UPDATE queue_rate_window SET window_starts = ? WHERE queue = 'default'", claim);
			this.jdbc.update("UPDATE queue_fair_key SET pass = ? WHERE queue = 'default'", claim);
		}
		// Settling deletes edges and pruning deletes batches; a schedule's fire rewrites its row.
		this.jdbc.update("INSERT INTO queue_dependency (depends_on, job_id) VALUES (1, 2)");
		this.jdbc.update("DELETE FROM queue_dependency");
		this.jdbc.update("INSERT INTO queue_batch (total, remaining) VALUES (1, 1)");
		this.jdbc.update("DELETE FROM queue_batch");
		this.jdbc.update("""
				INSERT INTO queue_schedule (name, handler, payload, every_millis, misfire, overlap, source, next_run_at)
				VALUES ('tick', 'work', 'null', 1000, 'SKIP', 'SKIP', 'API', now())""");
		this.jdbc.update("UPDATE queue_schedule SET version = version + 1");
		// Each stats turn rewrites the shared counts and the turn's row.
		for (int turn = 1; turn <= 3; turn++) {
			ClusterStore cluster = this.store.cluster();
			long taken = cluster.takeCountTurn("counter", Duration.ZERO).getAsLong();
			cluster.shareCounts("counter", taken,
					List.of(new QueueCount("default", JobStatus.QUEUED, turn, Duration.ZERO)),
					Map.of());
		}
		for (String table : List.of("queue_flow", "queue_rate_window", "queue_fair_key", "queue_dependency", "queue_batch",
				"queue_schedule", "queue_count", "queue_count_turn")) {
			// The statistics arrive a moment after the writes: without dead rows seen first, "none
			// left after the vacuum" would prove nothing.
			await().atMost(Duration.ofSeconds(30)).until(() -> deadRows(table) > 0);
		}
		vacuumOnce();
		assertVacuumed("queue_flow");
		assertVacuumed("queue_rate_window");
		assertVacuumed("queue_fair_key");
		assertVacuumed("queue_dependency");
		assertVacuumed("queue_batch");
		assertVacuumed("queue_schedule");
		assertVacuumed("queue_count");
		assertVacuumed("queue_count_turn");
	}

	/**
	 * A schema older than the code ({@code sqlqueue.migrate=false}, V13's tables not created):
	 * one {@code VACUUM} over the list would fail whole; the tables it has are vacuumed all the same.
	 */
	@Test
	void vacuumOfASchemaWithoutTheNewestTablesVacuumsThoseItHas() {
		this.jdbc.execute("DROP TABLE queue_count");
		this.jdbc.execute("DROP TABLE queue_count_turn");
		this.store = new JobStore(this.database.dataSource(), this.database.dialect(), this.database.schema());
		runOneJob();
		this.jdbc.update("INSERT INTO queue_flow (queue) VALUES ('default')");
		this.jdbc.update("UPDATE queue_flow SET version = version + 1");
		await().atMost(Duration.ofSeconds(30)).until(() -> deadRows("queue_job") > 0 && deadRows("queue_flow") > 0);
		vacuumOnce();
		assertVacuumed("queue_job");
		assertVacuumed("queue_flow");
	}

	/**
	 * A caller's transaction that holds a lock on one of the tables that conflicts with
	 * {@code VACUUM}'s (DDL, {@code LOCK TABLE}, a non-concurrent {@code CREATE INDEX}, another
	 * instance's vacuum) makes the pass skip that table, not wait for it.
	 */
	@Test
	void vacuumPassesOverATableAnotherTransactionLocks() throws Exception {
		this.jdbc.update("INSERT INTO queue_flow (queue) VALUES ('default')");
		this.jdbc.update("UPDATE queue_flow SET version = version + 1");
		await().atMost(Duration.ofSeconds(30)).until(() -> deadRows("queue_flow") > 0);
		try (OpenTransaction<Integer> caller = OpenTransaction.begin(this.database.dataSource(), () -> {
			this.jdbc.execute("LOCK TABLE queue_schedule IN SHARE MODE");
			return 1;
		})) {
			caller.result();
			CompletableFuture<Void> pass = CompletableFuture.runAsync(this::vacuumOnce);
			pass.get(10, TimeUnit.SECONDS);
			assertVacuumed("queue_flow");
		}
	}

	/**
	 * While the same transaction holds the horizon, a pass after the first reclaims nothing,
	 * and is not made; once the horizon moves, the next pass vacuums and reclaims what died.
	 */
	@Test
	void noVacuumWhileTheHorizonStaysWhereItWasAtTheLast() throws Exception {
		Vacuumer vacuumer = new Vacuumer(this.store, new org.springframework.scheduling.concurrent.ConcurrentTaskScheduler(),
				Duration.ofMinutes(1));
		try (OpenTransaction<Long> held = holdTheHorizon()) {
			held.result();
			assertThat(vacuumer.runOnce()).as("the first pass with the horizon held").isTrue();
			runOneJob();
			assertThat(vacuumer.runOnce()).as("the same transaction still holds the horizon").isFalse();
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> deadRows("queue_job") > 0);
		assertThat(vacuumer.runOnce()).as("the horizon moved").isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> deadRows("queue_job") == 0);
	}

	/**
	 * A role that may vacuum but not read the views the horizon is read from: every pass
	 * vacuums, as before the horizon was read, though one transaction holds it throughout.
	 */
	@Test
	void aHorizonThatCannotBeReadLeavesNoVacuumOut() throws Exception {
		AtomicInteger denied = new AtomicInteger();
		DataSource denying = denyingReads(this.database.dataSource(), this.database.dialect().horizonQuery(), denied);
		JobStore store = new JobStore(denying, this.database.dialect(), this.database.schema());
		try (OpenTransaction<Long> held = holdTheHorizon()) {
			held.result();
			assertThat(store.vacuum()).as("the first pass").isTrue();
			runOneJob();
			assertThat(store.vacuum()).as("the same transaction holds the horizon, unread").isTrue();
		}
		assertThat(denied).hasValue(2);
	}

	/** Connections of {@code dataSource} on which {@code denied} fails as for a role without the right to read. */
	private static DataSource denyingReads(DataSource dataSource, String deniedSql, AtomicInteger denied) {
		return (DataSource) Proxy.newProxyInstance(PostgresVacuumIT.class.getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					Object result = invoke(method, dataSource, args);
					return (result instanceof Connection connection) ? denying(connection, deniedSql, denied) : result;
				});
	}

	private static Connection denying(Connection connection, String deniedSql, AtomicInteger denied) {
		return (Connection) Proxy.newProxyInstance(PostgresVacuumIT.class.getClassLoader(),
				new Class<?>[] { Connection.class }, (proxy, method, args) -> {
					if (method.getName().equals("prepareStatement") && deniedSql.equals(args[0])) {
						throw deny(denied);
					}
					Object result = invoke(method, connection, args);
					if (!method.getName().equals("createStatement")) {
						return result;
					}
					Statement statement = (Statement) result;
					return Proxy.newProxyInstance(PostgresVacuumIT.class.getClassLoader(),
							new Class<?>[] { Statement.class }, (statementProxy, call, callArgs) -> {
								if (callArgs != null && callArgs.length > 0 && deniedSql.equals(callArgs[0])) {
									throw deny(denied);
								}
								return invoke(call, statement, callArgs);
							});
				});
	}

	private static SQLException deny(AtomicInteger denied) {
		denied.incrementAndGet();
		return new SQLException("permission denied for view pg_stat_activity", "42501");
	}

	private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	/** A REPEATABLE READ transaction with an xid: it holds the horizon until closed. */
	private OpenTransaction<Long> holdTheHorizon() {
		return OpenTransaction.begin(this.database.dataSource(), Connection.TRANSACTION_REPEATABLE_READ,
				() -> this.jdbc.queryForObject("SELECT txid_current()", Long.class));
	}

	/** Enqueues, claims and completes one job: two dead versions of its row. */
	private void runOneJob() {
		this.store.insert(List.of(new NewJob("default", "work", "{}", 0, null, 0, 3, null, null)));
		List<io.sqlqueue.JobRecord> claimed = this.store
			.claim(new ClaimRequest("w", "default", List.of("work"), 10, 30_000));
		this.store.complete(claimed.stream()
			.map((job) -> new Completion(new Lease(job.id(), job.leaseToken()), null))
			.toList());
	}

	private void vacuumOnce() {
		new Vacuumer(this.store, new org.springframework.scheduling.concurrent.ConcurrentTaskScheduler(),
				Duration.ofMinutes(1)).runOnce();
	}

	private void assertVacuumed(String table) {
		String name = this.database.schema() + "." + table;
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.jdbc.queryForObject(
					"SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = CAST(? AS regclass)", Long.class,
					name) > 0);
		assertThat(deadRows(table)).as("dead rows of %s", table).isZero();
	}

	private long deadRows(String table) {
		return this.jdbc.queryForObject("SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = CAST(? AS regclass)",
				Long.class, this.database.schema() + "." + table);
	}

}
