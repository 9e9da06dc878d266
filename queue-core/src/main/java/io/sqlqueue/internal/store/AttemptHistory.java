package io.sqlqueue.internal.store;

import java.util.Collection;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobStatus;
import io.sqlqueue.admin.JobAttempt;

/**
 * The attempts of jobs as the database keeps them ({@code queue_attempt}): each ended
 * attempt's row is written by the store's own end of it, in that end's transaction and
 * after its fenced write changed the job's row, so that a write that lost its lease records
 * nothing and the attempt has the row of whoever won (the reaper's). Deleted with the job.
 * <p>
 * Off ({@code sqlqueue.history.attempts=false}) for a schema without {@code queue_attempt}
 * (migrations managed by hand and not yet applied): then nothing is written and reads find
 * no attempts.
 */
public final class AttemptHistory {

	/** How an attempt ended, as far as the row to write says: by the fenced end, or by the reaper. */
	enum End {

		/** A fenced end of the worker's own: success, retry, failure, cancel. */
		ENDED,

		/** The reaper's: the worker's lease expired. */
		LEASE_EXPIRED

	}

	private final JdbcTemplate jdbc;

	private final Dialect dialect;

	private final AttemptSql sql;

	private volatile boolean enabled = true;

	AttemptHistory(JdbcTemplate jdbc, Dialect dialect, @Nullable String schema) {
		this.jdbc = jdbc;
		this.dialect = dialect;
		this.sql = new AttemptSql(dialect, schema);
	}

	/** Whether attempts are recorded (and read). Set while the store is wired, before it runs jobs. */
	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	AttemptSql sql() {
		return this.sql;
	}

	/**
	 * Records the attempt on this job that the current transaction just ended with a fenced
	 * write that changed its row. Must run in that transaction, after that write.
	 */
	void record(End end, long jobId) {
		if (this.enabled) {
			this.jdbc.update((end == End.ENDED) ? this.sql.recordEnded(1) : this.sql.recordLeaseExpired, jobId);
		}
	}

	/** As {@link #record(End, long)} for many jobs a batch just ended: one statement per {@link IdChunks#MAX}. */
	void recordEnded(Collection<Long> jobIds) {
		if (!this.enabled) {
			return;
		}
		for (Object[] chunk : IdChunks.of(jobIds)) {
			this.jdbc.update(this.sql.recordEnded(chunk.length), chunk);
		}
	}

	/** Deletes the attempts of these jobs: in the transaction that deletes the jobs. */
	void forget(Collection<Long> jobIds) {
		if (!this.enabled) {
			return;
		}
		for (Object[] chunk : IdChunks.of(jobIds)) {
			this.jdbc.update(this.sql.forget(chunk.length), chunk);
		}
	}

	/** The ended attempts of this job, oldest first; none for an unknown job. */
	public List<JobAttempt> of(long jobId) {
		if (!this.enabled) {
			return List.of();
		}
		return this.jdbc.query(this.sql.ofJob, (rs, row) -> new JobAttempt(rs.getInt("attempt"),
				rs.getString("worker"), this.dialect.getTimestamp(rs, "started_at"),
				Objects.requireNonNull(this.dialect.getTimestamp(rs, "ended_at")), rs.getString("outcome"),
				JobStatus.valueOf(rs.getString("status")), rs.getString("error")), jobId);
	}

}
