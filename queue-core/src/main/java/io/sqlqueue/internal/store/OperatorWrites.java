package io.sqlqueue.internal.store;

import java.sql.Types;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.SqlParameterValue;

import io.sqlqueue.DuplicateJobException;
import io.sqlqueue.JobRecord;

/**
 * An operator's (and the test kit's) writes to jobs by id: cancel one, ask a running one to
 * stop, note that someone awaits one, queue failed ones again, make delayed ones due. Each
 * runs in the caller's transaction when there is one, looking first whether that
 * transaction sees its job ({@link #isThere}).
 */
final class OperatorWrites {

	private final JdbcTemplate jdbc;

	private final StoreTransactions transactions;

	private final JobEndSql sql;

	private final JobSql jobSql;

	private final JobReadSql readSql;

	private final JobReads reads;

	private final JobEnds ends;

	private final @Nullable String notifyChannel;

	OperatorWrites(StoreContext context, JobSql jobSql, JobEndSql sql, JobReadSql readSql, JobReads reads,
			JobEnds ends, @Nullable String notifyChannel) {
		this.jdbc = context.jdbc();
		this.transactions = context.transactions();
		this.jobSql = jobSql;
		this.sql = sql;
		this.readSql = readSql;
		this.reads = reads;
		this.ends = ends;
		this.notifyChannel = notifyChannel;
	}

	/**
	 * Asks for the cancel of a {@code RUNNING} job: the instance that holds it stops it (it
	 * learns at its next heartbeat, or at once by {@code NOTIFY} on PostgreSQL). False when the
	 * job is not running.
	 */
	boolean requestCancel(long id) {
		boolean requested = isThere(id) && this.jdbc.update(this.sql.requestCancel, id) == 1;
		if (requested) {
			this.ends.announceCancel(id);
		}
		return requested;
	}

	/**
	 * Notes that someone awaits the job, where finishing jobs are announced: a completion
	 * flush then announces it. Its own transaction, so that it counts even while the caller's
	 * is open. Does nothing without notifications, where waiters read the job at intervals.
	 */
	void markAwaited(long id) {
		if (this.notifyChannel != null) {
			this.transactions.inNewTransaction(() -> this.jdbc.update(this.sql.markAwaited, id));
		}
	}

	/**
	 * Cancels a {@code QUEUED} or {@code WAITING} job, and settles what it ends (its
	 * dependents, its batch); false when there is no such job or it is in another state.
	 */
	boolean cancel(long id) {
		return isThere(id) && this.ends.cancel(id);
	}

	/**
	 * Whether an operator's write by id ({@link #cancel}, {@link #requestCancel},
	 * {@link #retryFailed}) may find its job: inside a caller's transaction, only when the
	 * transaction sees the job, read without a lock. Under MySQL's REPEATABLE READ (InnoDB's
	 * default, which the queue cannot change inside a caller's transaction) a write that finds
	 * no row locks the gap where it looked; above the highest id that gap is where every
	 * enqueue inserts, so it would hold up the enqueues of every instance until the caller's
	 * transaction ends. A write that finds its row by the primary key locks that row only.
	 * Outside a transaction each statement commits at once and holds nothing for long.
	 * <p>
	 * SQLite is not asked: it locks the whole file to write, so there is no gap to lock, and
	 * a transaction that began with this read would fail at its write (SQLITE_BUSY_SNAPSHOT,
	 * at once) whenever another connection had written in between, as a background loop
	 * does every second. Begun with the write, it waits its turn for the lock.
	 */
	private boolean isThere(long id) {
		return !this.transactions.callerHasOne() || this.jobSql.writeLockFirst != null
				|| !this.jdbc.queryForList(this.readSql.exists, Integer.class, id).isEmpty();
	}

	/**
	 * Queues a {@code FAILED} job again with a fresh set of attempts; false when it is not
	 * failed. Inside a caller's transaction (an operator's audited retry runs in one) the
	 * update runs under a savepoint: on PostgreSQL a unique key that an unfinished job holds
	 * fails the statement, and without the savepoint that failure would abort the caller's
	 * whole transaction, its own writes and the read that names the key included.
	 */
	boolean retryFailed(long id) {
		try {
			if (!isThere(id)) {
				return false;
			}
			return this.transactions.callerHasOne()
					? this.transactions.inSavepoint(() -> this.jdbc.update(this.sql.retryFailed, id) == 1)
					: this.jdbc.update(this.sql.retryFailed, id) == 1;
		}
		catch (DuplicateKeyException ex) {
			String key = this.reads.find(id).map(JobRecord::uniqueKey).orElse("?");
			throw new DuplicateJobException(String.valueOf(key));
		}
	}

	/**
	 * Queues up to {@code limit} {@code FAILED} jobs of this queue and this handler
	 * ({@code null} for any) again with a fresh set of attempts, oldest first; returns the
	 * ids it queued. Each job is queued by its own statement, so call it outside a
	 * transaction: a failed job whose unique key an unfinished job holds stays failed.
	 */
	List<Long> retryAllFailed(@Nullable String queue, @Nullable String handler, int limit) {
		List<Long> ids = this.jdbc.queryForList(this.sql.failedJobs, Long.class,
				new SqlParameterValue(Types.VARCHAR, queue), new SqlParameterValue(Types.VARCHAR, handler), limit);
		List<Long> retried = new ArrayList<>(ids.size());
		for (long id : ids) {
			try {
				if (this.jdbc.update(this.sql.retryFailed, id) == 1) {
					retried.add(id);
				}
			}
			catch (DuplicateKeyException ex) {
				// Another job with its unique key was enqueued meanwhile: this one stays failed.
			}
		}
		return retried;
	}

	/**
	 * Makes the delayed {@code QUEUED} jobs of these handlers (future {@code run_at}: a delay,
	 * or a retry's backoff) due now, on the database's clock; returns how many. For tests.
	 */
	int makeDue(Collection<String> handlers) {
		if (handlers.isEmpty()) {
			return 0;
		}
		return this.jdbc.update(this.jobSql.makeDue(handlers.size()), handlers.toArray());
	}

}
