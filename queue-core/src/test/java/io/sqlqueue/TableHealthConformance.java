package io.sqlqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionDefinition;

import io.sqlqueue.admin.TableHealth;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.test.OpenTransaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The reading of the queue's own tables' health ({@link JobStore#tableHealth()}) on every
 * database: what each reports, and on PostgreSQL and MariaDB the transaction that holds the
 * horizon back, found by its session's id while it is open and gone once it ends.
 * {@link QueueConformanceTests} implements this.
 */
interface TableHealthConformance extends ConformanceSupport {

	/** Names the holding session on PostgreSQL, so that the test can tell it from other sessions. */
	String HOLDER_APPLICATION = "sqlqueue-horizon-test";

	private JobStore healthStore() {
		assumeTrue(fixture().claimMethod() == isolatedDatabase().dialect().claimMethod(),
				"The reading does not depend on the claim method; run with the database's own");
		return fixture().store();
	}

	@Test
	default void tableHealthReadsWhatTheDatabaseReports() {
		JobStore store = healthStore();
		fixture().queue().enqueue("work", 1);
		TableHealth health = store.tableHealth();
		String database = isolatedDatabase().dialect().name();
		assertThat(health.database()).isEqualTo(database);
		assertThat(health.readAt()).isNotNull();
		assertThat(health.failure()).isNull();
		if (database.equals("postgresql") || database.equals("mariadb")) {
			assertThat(health.tables()).extracting(TableHealth.Table::name)
				.contains("queue_job", "queue_flow", "queue_schedule");
			TableHealth.Table jobs = health.tables().stream()
				.filter((table) -> table.name().equals("queue_job"))
				.findFirst()
				.orElseThrow();
			assertThat(jobs.dataBytes()).isPositive();
			assertThat(jobs.indexBytes()).isPositive();
			assertThat(jobs.deadRows() != null).isEqualTo(database.equals("postgresql"));
			assertThat(jobs.freeBytes() != null).isEqualTo(database.equals("mariadb"));
		}
		else {
			assertThat(health.tables()).isEmpty();
			assertThat(health.holders()).isEmpty();
			assertThat(health.notReported()).contains("table sizes", "dead rows");
			assertThat(health.holdingBack(Duration.ZERO)).isEmpty();
		}
	}

	/**
	 * A REPEATABLE READ transaction that has read holds its snapshot: it is reported with its
	 * session's id (and on PostgreSQL its application name) and its age; once the queue has dead
	 * rows (PostgreSQL) or undo history (MariaDB) and it is older than the threshold, it holds
	 * the queue back; once it ends it is gone.
	 */
	@Test
	default void anOpenSnapshotIsReportedAsHoldingTheHorizonUntilItEnds() throws Exception {
		JobStore store = healthStore();
		String database = isolatedDatabase().dialect().name();
		assumeTrue(database.equals("postgresql") || database.equals("mariadb"),
				"Only PostgreSQL and MariaDB report what holds the horizon");
		boolean postgres = database.equals("postgresql");
		String sessionId = postgres ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()";
		long pid;
		try (HikariDataSource holderPool = isolatedDatabase().newDataSource(1,
				postgres ? "SET application_name = '" + HOLDER_APPLICATION + "'" : null)) {
			try (OpenTransaction<Long> holder = OpenTransaction.begin(holderPool,
					TransactionDefinition.ISOLATION_REPEATABLE_READ, () -> {
						JdbcTemplate jdbc = new JdbcTemplate(holderPool);
						// A read of a queue table takes the snapshot (InnoDB: the read view) and keeps it.
						jdbc.queryForObject("SELECT COUNT(*) FROM " + table("queue_job"), Long.class);
						return jdbc.queryForObject(sessionId, Long.class);
					})) {
				pid = holder.result();
				makeGarbage();
				await().atMost(WAIT).untilAsserted(() -> {
					TableHealth health = store.tableHealth();
					TableHealth.Holder held = health.holders()
						.stream()
						.filter((candidate) -> Long.valueOf(pid).equals(candidate.pid()))
						.findFirst()
						.orElseThrow();
					assertThat(held.kind()).isEqualTo(TableHealth.TRANSACTION);
					assertThat(held.age()).isNotNull().isPositive();
					if (postgres) {
						assertThat(held.application()).isEqualTo(HOLDER_APPLICATION);
						assertThat(held.state()).isEqualTo("idle in transaction");
						assertThat(held.xminAge()).isPositive();
					}
					assertThat(health.holdingBack(Duration.ofMillis(100))).contains(held);
					assertThat(health.holdingBack(Duration.ofHours(1))).doesNotContain(held);
				});
			}
		}
		// The pool is closed too, whose checks may start a short transaction of their own; the
		// server may list a closed session's transaction for a moment while it cleans up.
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(store.tableHealth().holders())
				.noneMatch((holder) -> Long.valueOf(pid).equals(holder.pid())));
	}

	/**
	 * A table locked by another transaction (DDL, {@code LOCK TABLE}) does not hold the reading
	 * for longer than the store's own bound: it fails, and the next pass reads again.
	 */
	@Test
	default void aLockedTableFailsTheReadingWithinTheBound() throws Exception {
		JobStore store = healthStore();
		assumeTrue(isolatedDatabase().dialect().name().equals("postgresql"),
				"PostgreSQL's size functions take the table's lock; the other databases' catalogs do not wait");
		try (OpenTransaction<Void> ddl = OpenTransaction.begin(isolatedDatabase().dataSource(), () -> {
			new JdbcTemplate(isolatedDatabase().dataSource())
				.execute("LOCK TABLE " + table("queue_job") + " IN ACCESS EXCLUSIVE MODE");
			return null;
		})) {
			ddl.result();
			long start = System.nanoTime();
			assertThatThrownBy(store::tableHealth).isInstanceOf(CannotAcquireLockException.class);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		}
		assertThat(store.tableHealth().tables()).extracting(TableHealth.Table::name).contains("queue_job");
	}

	/** Claims and completes jobs: dead row versions on PostgreSQL, undo history on InnoDB. */
	private void makeGarbage() {
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			jobs.add(Job.of("work", i));
		}
		fixture().queue().enqueueAll(jobs);
		List<Completion> done = claim("default", 50, "work").stream().map(this::success).toList();
		fixture().store().complete(done);
	}

}
