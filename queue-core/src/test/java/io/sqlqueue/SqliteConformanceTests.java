package io.sqlqueue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.sqlqueue.admin.AuditEntry;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.Refusal;
import io.sqlqueue.internal.admin.DefaultQueueAdmin;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.dialect.Dialects;
import io.sqlqueue.test.InterleavedWriter;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SqliteConformanceTests extends QueueConformanceTests {

	@Override
	protected TestDatabase database() {
		return TestDatabase.SQLITE;
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			return ex.toString();
		}
	}

	@Test
	void startUpLeavesTheFileInWalMode() {
		assertThat(this.fixture.jdbc().queryForObject("PRAGMA journal_mode", String.class)).isEqualTo("wal");
	}

	@Test
	void startUpRefusesAConnectionWithoutABusyTimeout() {
		String url = this.database.url().replace("busy_timeout=10000", "busy_timeout=0");
		try (HikariDataSource pool = new HikariDataSource()) {
			pool.setJdbcUrl(url);
			assertThatThrownBy(() -> Dialects.detect(pool)).hasMessageContaining("busy timeout")
				.hasMessageContaining("busy_timeout=");
		}
	}

	/**
	 * An operator's retry and cancel, as the first statements of a caller's transaction, while
	 * another connection writes between any two statements: each takes the write lock with
	 * its first statement, so nothing comes between its read and its write (SqliteWriteLockFirstTests
	 * has the store's side).
	 */
	@Test
	void anOperatorsActionsInACallersTransactionWriteWhileAnotherConnectionWrites() throws Exception {
		long failed = this.fixture.queue().enqueue("audit.sqlite", null);
		long queued = this.fixture.queue().enqueue("audit.sqlite", null);
		this.fixture.jdbc().update("UPDATE queue_job SET status = 'FAILED', finished_at = run_at WHERE id = ?", failed);
		try (InterleavedWriter writer = new InterleavedWriter(this.database)) {
			DataSource interleaved = writer.around(this.database.dataSource());
			QueueAdmin admin = new DefaultQueueAdmin(this.fixture.otherInstanceQueue(interleaved),
					this.fixture.newStore(interleaved), null, null, null).by("sqlite-operator");
			TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(interleaved));
			int before = writer.writes();
			Boolean retried = transaction.execute((status) -> admin.retry(failed).done());
			Boolean cancelled = transaction.execute((status) -> admin.cancel(queued).done());
			Refusal missing = transaction.execute((status) -> admin.retry(424242).refusal());
			assertThat(retried).isTrue();
			assertThat(cancelled).isTrue();
			assertThat(missing).isEqualTo(Refusal.NO_SUCH_JOB);
			assertThat(writer.writes()).as("the other connection's writes").isGreaterThan(before);
			assertThat(this.fixture.status(failed)).isEqualTo(JobStatus.QUEUED);
			assertThat(this.fixture.status(queued)).isEqualTo(JobStatus.CANCELLED);
			assertThat(admin.audit(5)).extracting(AuditEntry::action).containsExactly("cancel", "retry");
		}
	}

	@Test
	void noClaimWithSkipLockedOnSqlite() {
		assertThatThrownBy(
				() -> new JobStore(this.database.dataSource(), this.database.dialect(), null, ClaimMethod.LOCK_THEN_UPDATE))
			.isInstanceOf(IllegalArgumentException.class);
	}

	/**
	 * An enqueue with {@code after} reads the jobs it runs after before it writes. A SQLite
	 * transaction that begins with a read cannot write once another connection has written
	 * since (SQLITE_BUSY at once, a WAL snapshot conflict the busy timeout does not help), so
	 * it takes the write lock first: every enqueue here succeeds while a Manager claims and
	 * completes jobs all along.
	 */
	@Test
	void enqueuesAfterOtherJobsSucceedWhileAManagerWrites() {
		handler("work", (payload, context) -> null);
		List<Job> backlog = new ArrayList<>();
		for (int i = 0; i < 3_000; i++) {
			backlog.add(Job.of("work", i));
		}
		List<Long> ids = this.fixture.queue().enqueueAll(backlog);
		this.fixture.startManager((s) -> s.defaultConcurrency(4));
		long previous = ids.get(0);
		int enqueued = 0;
		long deadline = System.nanoTime() + WAIT.toNanos();
		while (this.fixture.status(ids.get(ids.size() - 1)) != JobStatus.SUCCEEDED || enqueued < 200) {
			assertThat(System.nanoTime()).as("the backlog drained in time").isLessThan(deadline);
			previous = this.fixture.queue().enqueue(Job.of("work", null).after(previous, ids.get(enqueued % ids.size())));
			enqueued++;
		}
		long last = previous;
		org.awaitility.Awaitility.await()
			.atMost(WAIT)
			.pollInterval(Duration.ofMillis(20))
			.until(() -> this.fixture.status(last) == JobStatus.SUCCEEDED);
		assertThat(this.fixture.count("status <> 'SUCCEEDED'")).isZero();
	}

	/**
	 * Two JVMs on one file: this one runs a Manager, a second process claims with its own
	 * store ({@link SqliteSecondProcess}); every job runs once ({@code ran.job_id} is the key).
	 */
	@Test
	void aSecondProcessOnTheSameFileDrainsTheQueueWithThisOneEachJobOnce(@TempDir Path directory) throws Exception {
		int total = 600;
		this.fixture.jdbc().execute("CREATE TABLE ran (job_id BIGINT PRIMARY KEY, worker VARCHAR(128) NOT NULL)");
		handler("record", (payload, context) -> {
			this.fixture.jdbc().update("INSERT INTO ran (job_id, worker) VALUES (?, ?)", context.jobId(), "process-1");
			return null;
		});
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < total; i++) {
			jobs.add(Job.of("record", i));
		}
		this.fixture.queue().enqueueAll(jobs);
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process second = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				SqliteSecondProcess.class.getName(), this.database.url(), String.valueOf(total))
			.redirectErrorStream(true)
			.redirectOutput(directory.resolve("second-process.log").toFile())
			.start();
		try {
			// Start this side once the other claims, so that both surely take part.
			org.awaitility.Awaitility.await()
				.atMost(WAIT)
				.pollInterval(Duration.ofMillis(20))
				.until(() -> !second.isAlive() || this.fixture.jdbc()
					.queryForObject("SELECT COUNT(*) FROM ran WHERE worker = 'process-2'", Integer.class) > 0);
			Manager first = this.fixture.startManager((s) -> s.workerId("process-1").defaultConcurrency(4));
			assertThat(second.waitFor(2, TimeUnit.MINUTES)).isTrue();
			assertThat(second.exitValue()).as(() -> read(directory.resolve("second-process.log"))).isZero();
			org.awaitility.Awaitility.await()
				.atMost(WAIT)
				.pollInterval(Duration.ofMillis(100))
				.until(() -> this.fixture.count("status = 'SUCCEEDED'") == total);
			first.stop();
		}
		finally {
			second.destroyForcibly();
		}
		assertThat(this.fixture.jdbc().queryForObject("SELECT COUNT(*) FROM ran", Integer.class)).isEqualTo(total);
		assertThat(this.fixture.count("status <> 'SUCCEEDED' OR attempts <> 1")).isZero();
		assertThat(this.fixture.jdbc().queryForObject("SELECT COUNT(*) FROM ran WHERE worker = 'process-1'",
				Integer.class)).isPositive();
		assertThat(this.fixture.jdbc().queryForObject("SELECT COUNT(*) FROM ran WHERE worker = 'process-2'",
				Integer.class)).isPositive();
	}

}
