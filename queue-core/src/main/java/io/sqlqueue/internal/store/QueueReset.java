package io.sqlqueue.internal.store;

import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.Names;

/**
 * Empties the queue between an application's tests (the test kit's {@code reset()}): every
 * job, dependency edge and batch, and the rate limits' windows, so that no test sees the
 * jobs, unique keys, spent rates or paused queues of the one before. What the application declares at
 * start-up stays: the schedules (with their next due times) and the limits, as does the
 * schema history. Ids keep counting up, so an id a test kept never names a later job.
 * <p>
 * One transaction of its own, committed at once (also when called inside a test's
 * transaction), in which a wait for a row another transaction holds lasts at most
 * {@link #LOCK_WAIT} where the database can bound it; {@code DELETE}, not
 * {@code TRUNCATE}, which MariaDB commits implicitly and PostgreSQL runs under a lock of the
 * whole table that waits for every reader.
 */
public class QueueReset {

	/** The longest a reset waits for a row another transaction holds, where the database can bound it. */
	static final Duration LOCK_WAIT = Duration.ofSeconds(5);

	private final JdbcTemplate jdbc;

	private final StoreTransactions transactions;

	private final List<String> statements;

	public QueueReset(DataSource dataSource, Dialect dialect, @Nullable String schema) {
		this.jdbc = StoreContext.jdbcTemplate(dataSource, dialect);
		this.transactions = new StoreTransactions(dataSource, dialect);
		String checkedSchema = Names.requireSchema(schema);
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		// A limited queue's flow row stays (its limits join it, and its version tells instances
		// whether their limits are current): only its own rate window is emptied.
		this.statements = List.of("DELETE FROM %squeue_dependency".formatted(prefix),
				"DELETE FROM %squeue_batch".formatted(prefix), "DELETE FROM %squeue_attempt".formatted(prefix),
				"DELETE FROM %squeue_job_tag".formatted(prefix), "DELETE FROM %squeue_job_meta".formatted(prefix),
				"DELETE FROM %squeue_job_step".formatted(prefix), "DELETE FROM %squeue_job_signal".formatted(prefix),
				"DELETE FROM %squeue_lease_extension".formatted(prefix), "DELETE FROM %squeue_job".formatted(prefix),
				"DELETE FROM %squeue_rate_window".formatted(prefix), "DELETE FROM %squeue_fair_key".formatted(prefix),
				"DELETE FROM %squeue_paused".formatted(prefix),
				"DELETE FROM %squeue_audit".formatted(prefix), "DELETE FROM %squeue_count".formatted(prefix),
				// Nothing shared: the next stats pass counts (the turn's number and time stay).
				"UPDATE %squeue_count_turn SET taken_by = NULL, counted_by = NULL, counted_at = NULL".formatted(prefix),
				"UPDATE %squeue_flow SET window_start = 0, window_starts = 0, previous_starts = 0".formatted(prefix));
	}

	/**
	 * Deletes every job (with its tags, metadata, steps, signals and leases extended beside it), attempt, edge, batch, rate window, key in fair turns, pause, audit
	 * entry and shared count; sets every queue's own rate window back to empty.
	 */
	public void reset() {
		this.transactions.inNewBoundedLockWait(this.jdbc, LOCK_WAIT, () -> {
			this.statements.forEach(this.jdbc::update);
			return null;
		});
	}

	/** The statements of {@link #reset}, in order. */
	List<String> statements() {
		return this.statements;
	}

}
