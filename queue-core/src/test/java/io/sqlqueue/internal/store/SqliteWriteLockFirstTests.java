package io.sqlqueue.internal.store;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.function.LongPredicate;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.sqlqueue.JobStatus;
import io.sqlqueue.internal.schema.QueueSchemaMigrator;
import io.sqlqueue.internal.store.dialect.Dialects;
import io.sqlqueue.test.InterleavedWriter;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue's transactions on SQLite that read before they write take the write lock first,
 * and so succeed while another connection writes between any two of their statements
 * ({@link InterleavedWriter}). Operators' writes by id and a signal run as the first
 * statements of a caller's transaction; a step's record in the attempt's; the pruner in its own.
 */
class SqliteWriteLockFirstTests {

	private TestDatabase.Isolated database;

	private InterleavedWriter writer;

	private JobStore store;

	private JdbcTemplate jdbc;

	private TransactionTemplate transaction;

	@BeforeEach
	void setUp() {
		this.database = TestDatabase.SQLITE.isolated();
		Dialects.check(this.database.dialect(), this.database.dataSource());
		new QueueSchemaMigrator(this.database.dataSource(), this.database.dialect(), this.database.schema()).migrate();
		this.jdbc = new JdbcTemplate(this.database.dataSource());
		this.writer = new InterleavedWriter(this.database);
		DataSource interleaved = this.writer.around(this.database.dataSource());
		this.store = new JobStore(interleaved, this.database.dialect(), this.database.schema());
		this.transaction = new TransactionTemplate(new DataSourceTransactionManager(interleaved));
	}

	@AfterEach
	void tearDown() throws SQLException {
		this.writer.close();
		this.database.close();
	}

	@Test
	void aRetryInACallersTransactionWritesWhileAnotherConnectionWrites() {
		long id = job("FAILED");
		assertThat(inCallersTransaction(id, this.store::retryFailed)).isTrue();
		assertThat(status(id)).isEqualTo("QUEUED");
	}

	@Test
	void aCancelInACallersTransactionWritesWhileAnotherConnectionWrites() {
		long id = job("QUEUED");
		assertThat(inCallersTransaction(id, this.store::cancel)).isTrue();
		assertThat(status(id)).isEqualTo("CANCELLED");
	}

	@Test
	void anAskToCancelInACallersTransactionWritesWhileAnotherConnectionWrites() {
		long id = job("RUNNING");
		assertThat(inCallersTransaction(id, this.store::requestCancel)).isTrue();
		assertThat(this.jdbc.queryForObject("SELECT cancel_requested_at FROM queue_job WHERE id = ?", String.class,
				id))
			.isNotNull();
	}

	@Test
	void aJobThatIsNotThereIsStillNotFound() {
		assertThat(inCallersTransaction(999_999L, this.store::retryFailed)).isFalse();
		assertThat(inCallersTransaction(999_999L, this.store::cancel)).isFalse();
		assertThat(inCallersTransaction(999_999L, this.store::requestCancel)).isFalse();
	}

	@Test
	void aSignalInACallersTransactionWritesWhileAnotherConnectionWrites() {
		long id = job("QUEUED");
		assertThat(inCallersTransaction(id, (job) -> this.store.steps().signal(job, "go", "1") != null)).isTrue();
		assertThat(this.store.steps().signalPayload(id, "go")).contains("1");
	}

	@Test
	void aStepsRecordInTheAttemptsTransactionWritesWhileAnotherConnectionWrites() {
		long id = job("RUNNING");
		int before = this.writer.writes();
		this.store.inTransaction(() -> {
			this.store.steps().recordStep(id, "first", "1");
			this.store.steps().recordStep(id, "second", "2");
			return null;
		});
		assertThat(this.writer.writes()).as("the other connection's writes").isGreaterThan(before);
		assertThat(this.store.steps().recordsOf(id)).hasSize(2);
	}

	@Test
	void thePrunerDeletesJobsWhileAnotherConnectionWrites() {
		long id = job("SUCCEEDED");
		this.jdbc.update("UPDATE queue_job SET finished_at = '2000-01-01 00:00:00.000' WHERE id = ?", id);
		int before = this.writer.writes();
		assertThat(this.store.pruneFinished(JobStatus.SUCCEEDED, Duration.ofDays(1), null, 10).count()).isEqualTo(1);
		assertThat(this.writer.writes()).as("the other connection's writes").isGreaterThan(before);
	}

	@Test
	void thePrunerDeletesBatchesWhileAnotherConnectionWrites() {
		this.jdbc.update("INSERT INTO queue_batch (id, total, remaining, created_at, finished_at) "
				+ "VALUES (1, 1, 0, '2000-01-01 00:00:00.000', '2000-01-01 00:00:00.000')");
		int before = this.writer.writes();
		assertThat(this.store.pruneBatches(Duration.ofDays(1))).isEqualTo(1);
		assertThat(this.writer.writes()).as("the other connection's writes").isGreaterThan(before);
	}

	/** The write, as the first statement of the caller's transaction. */
	private boolean inCallersTransaction(long id, LongPredicate write) {
		int before = this.writer.writes();
		Boolean written = this.transaction.execute((status) -> write.test(id));
		// The check can fail: the other connection wrote before the caller's first statement.
		assertThat(this.writer.writes()).as("the other connection's writes").isGreaterThan(before);
		return Boolean.TRUE.equals(written);
	}

	private long job(String status) {
		long id = this.store.insert(List.of(new NewJob("default", "h", "1", 0, null, 0, 3, null, null, null, null,
				null, null, null)))
			.get(0);
		String lease = status.equals("RUNNING") ? "1" : "NULL";
		String expires = status.equals("RUNNING") ? "'2999-01-01 00:00:00.000'" : "NULL";
		this.jdbc.update("UPDATE queue_job SET status = ?, lease_token = " + lease + ", lease_expires_at = " + expires
				+ " WHERE id = ?", status, id);
		return id;
	}

	private String status(long id) {
		return this.jdbc.queryForObject("SELECT status FROM queue_job WHERE id = ?", String.class, id);
	}

}
