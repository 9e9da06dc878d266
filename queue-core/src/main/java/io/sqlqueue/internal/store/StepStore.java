package io.sqlqueue.internal.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobSignal;
import io.sqlqueue.JobStatus;
import io.sqlqueue.JobStep;
import io.sqlqueue.Names;
import io.sqlqueue.NoSuchJobException;

/**
 * Jobs' durable progress (docs/durable-steps.md) in its side tables ({@code queue_job_step},
 * {@code queue_job_signal}, migration V15): the records a job's runs write (steps, sleeps,
 * waits for signals, patch markers), the signals sent to jobs, and the wake of a job parked
 * waiting for a signal. The claim, the heartbeat and the completion never read these tables.
 * The same statements serve every database.
 * <p>
 * A signal must wake a job that parks waiting for it whatever their order, without the
 * signal's transaction locking the job's row: that transaction is often a caller's, open
 * for as long as the caller likes, and a locked row of a running job would stall the
 * heartbeat's lease renewal (on MariaDB an {@code UPDATE} keeps its lock on a row it read
 * even when its condition did not match). So the signal's transaction only inserts the
 * signal, and the wake is one statement, {@link #wake}, in a short transaction of its own
 * that changes the job only when it is parked ({@code QUEUED}, due later), waits for that
 * signal (its record is there, not timed out) and the signal is there; it runs after the
 * signal commits and after every park that waits for a signal commits. Whichever of the two
 * commits last, the statement that follows its commit sees both. A wake that fails (the
 * job's row held by another transaction past the wake's bounded lock wait) is tried again
 * later ({@link #wakeOrRetryLater}). An instance that dies between a signal's commit and its
 * wake, or with wakes left to try again, leaves the job parked until its wait times out;
 * that run finds the signal and returns it.
 */
public final class StepStore {

	private static final Logger logger = LoggerFactory.getLogger(StepStore.class);

	private static final String STEP = "step";

	private static final String SLEEP = "sleep";

	private static final String SIGNAL = "signal";

	private static final String PATCH = "patch";

	private final JdbcTemplate jdbc;

	private final Dialect dialect;

	private final StoreTransactions transactions;

	private final @Nullable WorkAnnouncer announcer;

	private final String stepTable;

	private final String jobTable;

	private final String makeDue;

	private final String signalTable;

	private final String records;

	private final String insertRecord;

	private final String nextSeq;

	private final String insertWakingRecord;

	private final String wakeAtOf;

	private final String timeOut;

	private final String clearTimedOut;

	private final String signalPayload;

	private final String signals;

	private final String jobState;

	private final String insertSignal;

	private final String wake;

	private final String fence;

	private final String endSleeps;

	private final String recordSeqs;

	private final String forgetFrom;

	/** The wakes that failed, tried again later. */
	private final WakeRetries retries = new WakeRetries((jobId, name, queue) -> {
		wake(jobId, name, queue);
		return true;
	});

	/** {@link Dialect#writeLockFirst}: a signal and a record read before they write, on SQLite. */
	private final @Nullable String writeLockFirst;


	StepStore(JdbcTemplate jdbc, Dialect dialect, StoreTransactions transactions, @Nullable WorkAnnouncer announcer,
			String jobTable, @Nullable String schema) {
		this.jdbc = jdbc;
		this.dialect = dialect;
		this.transactions = transactions;
		this.announcer = announcer;
		String checkedSchema = Names.requireSchema(schema);
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		this.stepTable = prefix + "queue_job_step";
		this.signalTable = prefix + "queue_job_signal";
		this.jobTable = jobTable;
		String now = dialect.now();
		this.records = """
				SELECT kind, name, result, wake_at, timed_out, recorded_at FROM %s
				WHERE job_id = ?
				ORDER BY seq""".formatted(this.stepTable);
		this.nextSeq = "SELECT COALESCE(MAX(seq), 0) + 1 FROM %s WHERE job_id = ?".formatted(this.stepTable);
		this.insertRecord = """
				INSERT INTO %s (job_id, seq, kind, name, result, wake_at, recorded_at)
				VALUES (?, ?, ?, ?, ?, %s, %s)""".formatted(this.stepTable, dialect.timestampParameter(), now);
		this.insertWakingRecord = """
				INSERT INTO %s (job_id, seq, kind, name, wake_at, recorded_at)
				VALUES (?, ?, ?, ?, %s, %s)""".formatted(this.stepTable, dialect.nowPlusMillis(), now);
		this.wakeAtOf = "SELECT wake_at FROM %s WHERE job_id = ? AND kind = ? AND name = ?".formatted(this.stepTable);
		this.timeOut = """
				UPDATE %s SET timed_out = 1
				WHERE job_id = ? AND kind = 'signal' AND name = ?""".formatted(this.stepTable);
		this.clearTimedOut = """
				UPDATE %s SET timed_out = 0
				WHERE job_id = ? AND kind = 'signal' AND name = ?""".formatted(this.stepTable);
		this.signalPayload = "SELECT payload FROM %s WHERE job_id = ? AND name = ?".formatted(this.signalTable);
		this.signals = """
				SELECT name, payload, sent_at FROM %s
				WHERE job_id = ?
				ORDER BY sent_at, name""".formatted(this.signalTable);
		this.writeLockFirst = dialect.writeLockFirst(jobTable);
		this.makeDue = """
				UPDATE %s SET run_at = %s, updated_at = %s, version = version + 1
				WHERE id = ? AND status = 'QUEUED'""".formatted(jobTable, now, now);
		this.jobState = "SELECT status, queue FROM %s WHERE id = ?".formatted(jobTable);
		this.insertSignal = """
				INSERT INTO %s (job_id, name, payload, sent_at)
				VALUES (?, ?, ?, %s)""".formatted(this.signalTable, now);
		this.wake = """
				UPDATE %s SET run_at = %s, updated_at = %s, version = version + 1
				WHERE id = ? AND status = 'QUEUED' AND run_at > %s
				  AND EXISTS (SELECT 1 FROM %s s WHERE s.job_id = ? AND s.name = ?)
				  AND EXISTS (SELECT 1 FROM %s w WHERE w.job_id = ? AND w.kind = 'signal' AND w.name = ?
				              AND w.timed_out = 0)""".formatted(jobTable, now, now, now, this.signalTable,
				this.stepTable);
		// A write, so that the row stays locked until the step's transaction commits: the
		// reaper cannot hand the job to another worker between this check and the commit.
		this.fence = """
				UPDATE %s SET updated_at = %s
				WHERE id = ? AND lease_token = ? AND status = 'RUNNING' AND %s"""
			.formatted(jobTable, now, LeaseSql.leaseHolds(prefix + "queue_lease_extension", dialect.currentTime()));
		String endWaits = """
				UPDATE %s SET wake_at = %s
				WHERE job_id = ? AND kind IN (%s) AND wake_at > %s""";
		this.endSleeps = endWaits.formatted(this.stepTable, now, "'sleep'", now);
		this.recordSeqs = "SELECT seq FROM %s WHERE job_id = ? ORDER BY seq".formatted(this.stepTable);
		this.forgetFrom = "DELETE FROM %s WHERE job_id = ? AND seq >= ?".formatted(this.stepTable);
	}

	/**
	 * Runs {@code work} (reads and writes of a job's records, a transactional step) in a
	 * transaction of its own, never a caller's, so that what it records outlives whatever a
	 * transaction the queue does not own does (a handler's Spring transaction, which a park
	 * rolls back); see {@link StoreTransactions#inNewApartFromCaller}.
	 * @throws IllegalStateException on SQLite, within a transaction on the queue's data source
	 */
	public <T> T inOwnTransaction(Supplier<T> work) {
		return this.transactions.inNewApartFromCaller(work);
	}

	/** What the job's runs recorded, oldest first. */
	public List<JobStep> recordsOf(long jobId) {
		return this.jdbc.query(this.records, (rs, row) -> record(rs), jobId);
	}

	/**
	 * Records a step's result (JSON), in the current transaction if there is one.
	 * @throws DuplicateKeyException when another run of the job recorded it first
	 */
	public void recordStep(long jobId, String name, String json) {
		insertRecord(jobId, STEP, name, json, null);
	}

	/** Records a sleep that ends at {@code wakeAt}. */
	public void recordSleepUntil(long jobId, String name, Instant wakeAt) {
		insertRecord(jobId, SLEEP, name, null, wakeAt);
	}

	/** Records that a run took the new branch of the patch {@code name} ({@code JobContext.patched}). */
	public void recordPatch(long jobId, String name) {
		insertRecord(jobId, PATCH, name, null, null);
	}

	private void insertRecord(long jobId, String kind, String name, @Nullable String result,
			@Nullable Instant wakeAt) {
		long seq = nextSeq(jobId);
		this.jdbc.update(this.insertRecord, (PreparedStatement ps) -> {
			ps.setLong(1, jobId);
			ps.setLong(2, seq);
			ps.setString(3, kind);
			ps.setString(4, name);
			ps.setString(5, result);
			this.dialect.setTimestamp(ps, 6, wakeAt);
		});
	}

	/** Records a sleep of {@code millis} from now on the database's clock; returns when it ends. */
	public Instant recordSleep(long jobId, String name, long millis) {
		return recordWaking(jobId, SLEEP, name, millis);
	}

	/** Records a wait for the signal {@code name} that times out {@code millis} from now; returns when. */
	public Instant recordSignalWait(long jobId, String name, long millis) {
		return recordWaking(jobId, SIGNAL, name, millis);
	}

	private Instant recordWaking(long jobId, String kind, String name, long millis) {
		return this.transactions.inCallerOrNew(() -> {
			this.jdbc.update(this.insertWakingRecord, jobId, nextSeq(jobId), kind, name, millis);
			return Objects.requireNonNull(this.jdbc.queryForObject(this.wakeAtOf,
					(rs, row) -> this.dialect.getTimestamp(rs, "wake_at"), jobId, kind, name));
		});
	}

	/**
	 * The number of the job's next record; only a run of the job writes them, one at a time.
	 * Its insert follows, so on SQLite the write lock comes first (see {@link #signal}).
	 */
	private long nextSeq(long jobId) {
		if (this.writeLockFirst != null) {
			this.jdbc.update(this.writeLockFirst);
		}
		Long next = this.jdbc.queryForObject(this.nextSeq, Long.class, jobId);
		return (next != null) ? next : 1;
	}

	/** Notes that the job's wait for this signal timed out, so that every later run finds the same. */
	public void recordTimedOut(long jobId, String name) {
		this.jdbc.update(this.timeOut, jobId, name);
	}

	/**
	 * Notes that the job's wait for this signal did not time out after all: a signal that came
	 * after it timed out is read by a run that recorded nothing past the wait.
	 */
	public void clearTimedOut(long jobId, String name) {
		this.jdbc.update(this.clearTimedOut, jobId, name);
	}

	/** The payload (JSON) of the signal of this name sent to the job, if one was. */
	public Optional<String> signalPayload(long jobId, String name) {
		return this.jdbc.queryForList(this.signalPayload, String.class, jobId, name).stream().findFirst();
	}

	/** The signals sent to the job, oldest first. */
	public List<JobSignal> signalsOf(long jobId) {
		return this.jdbc.query(this.signals, (rs, row) -> new JobSignal(rs.getString("name"), rs.getString("payload"),
				Objects.requireNonNull(this.dialect.getTimestamp(rs, "sent_at"))), jobId);
	}

	/**
	 * Stores a signal for the job, in the caller's transaction when there is one, and wakes
	 * the job if it is parked waiting for it once that commits (see the class comment).
	 * Returns the job's queue, whose workers to wake.
	 * @throws NoSuchJobException when there is no such job
	 * @throws IllegalStateException when the job succeeded or was cancelled (a failed one takes
	 * signals, read when an operator retries it), or has a signal of this name already
	 */
	public String signal(long jobId, String name, String payload) {
		String queue = this.transactions.inCallerOrNew(() -> {
			if (this.writeLockFirst != null) {
				// A transaction that began with a read fails at its first write when another wrote
				// meanwhile; in a caller's transaction too (see AuditLog#inTransaction).
				this.jdbc.update(this.writeLockFirst);
			}
			List<Object[]> states = this.jdbc.query(this.jobState,
					(rs, row) -> new Object[] { rs.getString("status"), rs.getString("queue") }, jobId);
			if (states.isEmpty()) {
				throw new NoSuchJobException(jobId);
			}
			JobStatus status = JobStatus.valueOf((String) states.get(0)[0]);
			// A FAILED job may be retried by an operator, whose run reads it: a late callback is
			// stored for it.
			if (status.isFinished() && status != JobStatus.FAILED) {
				throw new IllegalStateException("Job " + jobId + " is " + status + ": a signal to a finished job "
						+ "would never be read, so '" + name + "' was not stored");
			}
			if (signalPayload(jobId, name).isPresent()) {
				throw alreadySignalled(jobId, name, null);
			}
			try {
				this.jdbc.update(this.insertSignal, jobId, name, payload);
			}
			catch (DuplicateKeyException ex) {
				throw alreadySignalled(jobId, name, ex);
			}
			return (String) states.get(0)[1];
		});
		// The signal is stored: the caller's commit must not fail for its wake.
		AfterCommit.run(() -> wakeOrRetryLater(jobId, name, queue));
		return queue;
	}

	private static IllegalStateException alreadySignalled(long jobId, String name, @Nullable Exception cause) {
		return new IllegalStateException("Job " + jobId + " already has a signal '" + name
				+ "': a job keeps one signal per name, and the first is the one it reads", cause);
	}

	/**
	 * Wakes the job if it is parked waiting for the signal {@code name} and the signal is
	 * there, in a short transaction of its own (its wait for a parked job's row that another
	 * transaction holds bounded by {@link StoreTransactions#OWN_LOCK_WAIT}), and announces its queue;
	 * after the commit of a signal or of a park that waits for one. Returns whether it woke the job.
	 */
	public boolean wake(long jobId, String name, String queue) {
		// READ COMMITTED: on MariaDB a repeatable read's UPDATE would take shared locks on the
		// signal rows it reads, and wait for a caller's open transaction that inserted one.
		Supplier<Boolean> wake = () -> this.jdbc.update(this.wake, jobId, jobId, name, jobId, name) == 1;
		boolean woke = Boolean.TRUE.equals(this.transactions.rowLocks()
				? this.transactions.inNewBoundedLockWait(this.jdbc, StoreTransactions.OWN_LOCK_WAIT, wake)
				: this.transactions.inNewTransaction(wake));
		if (woke && this.announcer != null) {
			this.announcer.announce(List.of(queue));
		}
		return woke;
	}

	/**
	 * {@link #wake}s the job; when that fails (most often: another transaction held the parked
	 * job's row for longer than the wake's bounded lock wait), tries it again later on a thread
	 * of its own ({@link WakeRetries}), until it is done, so that the job does not sleep until
	 * its wait times out. Never throws.
	 */
	public void wakeOrRetryLater(long jobId, String name, String queue) {
		try {
			wake(jobId, name, queue);
		}
		catch (RuntimeException ex) {
			logger.info("Could not wake job {} for its signal '{}' now; trying again in {} ({})", jobId, name,
					WakeRetries.FIRST, ex.getMessage());
			this.retries.add(jobId, name, queue);
		}
	}

	/** How many wakes wait to be tried again ({@link #wakeOrRetryLater}). */
	public int wakesToRetry() {
		return this.retries.pending();
	}

	/**
	 * Whether the attempt's lease still holds, by the database's clock at this moment; the
	 * job's row stays locked until the current transaction ends. In a transactional step's
	 * transaction, last before its commit.
	 */
	public boolean holdsLease(Lease lease) {
		return this.jdbc.update(this.fence, lease.jobId(), lease.token()) == 1;
	}

	/** Ends now the sleeps that the job's records have it wait for: for the test kit, which then makes the job due. */
	public int endSleeps(long jobId) {
		return this.jdbc.update(this.endSleeps, jobId);
	}

	/**
	 * Ends now the sleeps (and, with {@code signalWaits}, the waits for signals) of the
	 * queued jobs of these handlers: for the test kit, before it makes delayed jobs due.
	 */
	public int endWaitsOf(Collection<String> handlers, boolean signalWaits) {
		if (handlers.isEmpty()) {
			return 0;
		}
		String now = this.dialect.now();
		String in = String.join(", ", java.util.Collections.nCopies(handlers.size(), "?"));
		return this.jdbc.update("""
				UPDATE %s SET wake_at = %s
				WHERE kind IN (%s) AND wake_at > %s
				  AND job_id IN (SELECT id FROM %s WHERE status = 'QUEUED' AND handler IN (%s))"""
			.formatted(this.stepTable, now, signalWaits ? "'sleep', 'signal'" : "'sleep'", now, this.jobTable, in),
				handlers.toArray());
	}

	/**
	 * Makes the queued job due now, its sleeps ended (its waits for signals go on): for the
	 * test kit. False when the job is not queued.
	 */
	public boolean wakeUp(long jobId) {
		return Boolean.TRUE.equals(this.transactions.inCallerOrNew(() -> {
			endSleeps(jobId);
			return this.jdbc.update(this.makeDue, jobId) == 1;
		}));
	}

	/**
	 * Deletes the job's records from its {@code record}th on (numbered from 1 in the order they
	 * were written, as {@link #recordsOf} lists them), in the current transaction if there is
	 * one; its signals stay. For an operator's retry from a record, of a job that no run holds.
	 * Returns how many were deleted, or -1 (and deletes nothing) when the job has fewer records.
	 */
	public int forgetRecordsFrom(long jobId, int record) {
		List<Long> seqs = this.jdbc.queryForList(this.recordSeqs, Long.class, jobId);
		if (record < 1 || record > seqs.size()) {
			return -1;
		}
		return this.jdbc.update(this.forgetFrom, jobId, seqs.get(record - 1));
	}

	/** How many records the job has. */
	public int recordCount(long jobId) {
		return this.jdbc.queryForList(this.recordSeqs, Long.class, jobId).size();
	}

	/** Deletes the records and signals of these jobs (deleted in the same transaction). */
	void forget(Collection<Long> ids) {
		for (Object[] chunk : IdChunks.of(ids)) {
			String in = String.join(", ", java.util.Collections.nCopies(chunk.length, "?"));
			this.jdbc.update("DELETE FROM %s WHERE job_id IN (%s)".formatted(this.stepTable, in), chunk);
			this.jdbc.update("DELETE FROM %s WHERE job_id IN (%s)".formatted(this.signalTable, in), chunk);
		}
	}

	private JobStep record(ResultSet rs) throws SQLException {
		return new JobStep(JobStep.Kind.valueOf(rs.getString("kind").toUpperCase(Locale.ROOT)), rs.getString("name"),
				rs.getString("result"), this.dialect.getTimestamp(rs, "wake_at"), rs.getInt("timed_out") != 0,
				Objects.requireNonNull(this.dialect.getTimestamp(rs, "recorded_at")));
	}

}
