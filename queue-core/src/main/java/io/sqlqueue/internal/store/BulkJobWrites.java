package io.sqlqueue.internal.store;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.BiFunction;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobStatus;

/**
 * The writes over many jobs at once, each batch in one short transaction that passes over
 * rows another transaction holds (where the database has {@code SKIP LOCKED}): the pruner's
 * deletes of finished jobs and batches, and a bulk action's deletes and cancels of a chunk of
 * ids. What a deleted job leaves in other tables (its links, attempts, labels and steps) goes
 * with it.
 */
final class BulkJobWrites {

	/** The most batches one pass of the pruner deletes; the next pass goes on. */
	static final int BATCHES_PRUNED = 1_000;

	private final JdbcTemplate jdbc;

	private final StoreTransactions transactions;

	private final Dialect dialect;

	private final JobBulkSql sql;

	private final JobEndSql endSql;

	/** {@link JobSql#writeLockFirst}. */
	private final @Nullable String writeLockFirst;

	private final WorkflowStore workflows;

	private final AttemptHistory attempts;

	private final JobLabels labels;

	private final StepStore steps;

	private final JobEnds ends;

	BulkJobWrites(StoreContext context, JobBulkSql sql, JobEndSql endSql, @Nullable String writeLockFirst,
			WorkflowStore workflows, AttemptHistory attempts, JobLabels labels, StepStore steps, JobEnds ends) {
		this.jdbc = context.jdbc();
		this.transactions = context.transactions();
		this.dialect = context.dialect();
		this.sql = sql;
		this.endSql = endSql;
		this.writeLockFirst = writeLockFirst;
		this.workflows = workflows;
		this.attempts = attempts;
		this.labels = labels;
		this.steps = steps;
		this.ends = ends;
	}

	/**
	 * Deletes up to {@code limit} jobs in this finished state that finished longer than
	 * {@code age} ago, the oldest first, reading from {@code from} (a finished_at) on where
	 * that is not null: where the last batch of the same pass ended. Touches only finished
	 * rows, so claims never wait for it. Where the database has {@code SKIP LOCKED}, it locks
	 * them first (READ COMMITTED, so MySQL takes no gap locks) and passes over rows another
	 * transaction holds: a caller's open transaction that enqueued a job after a finished one
	 * holds that row, and waiting for it would stop every later pass of the pruner until that
	 * transaction ends.
	 * <p>
	 * While a long transaction holds the database's horizon, the oldest entries of the
	 * finished jobs' index are those of every job deleted since, dead but not removable, and a
	 * pass whose every batch read from the oldest walked them all again: its cost grew with the
	 * square of the jobs it deleted. A job skipped before {@code from} (held by another
	 * transaction, or committed late with an earlier finished_at) is the next pass's, which
	 * starts from the oldest.
	 */
	PrunedJobs pruneFinished(JobStatus status, Duration age, @Nullable Instant from, int limit) {
		if (!status.isFinished()) {
			throw new IllegalArgumentException("Only finished jobs are pruned, not " + status);
		}
		boolean lock = this.transactions.rowLocks();
		String statement = (from == null) ? (lock ? this.sql.lockFinishedBefore : this.sql.finishedBefore)
				: (lock ? this.sql.lockFinishedFrom : this.sql.finishedFrom);
		// The jobs and their attempts in one transaction: no attempt outlives its job.
		PrunedJobs pruned = this.transactions.inCallerOrNewReadCommitted(() -> prune(statement, status, age, from, limit));
		return (pruned != null) ? pruned : new PrunedJobs(0, from);
	}

	private PrunedJobs prune(String finishedBefore, JobStatus status, Duration age, @Nullable Instant from, int limit) {
		takeWriteLockFirst();
		List<Long> ids = new ArrayList<>(limit);
		Instant[] last = { from };
		this.jdbc.query(finishedBefore, (ps) -> {
			int index = 1;
			ps.setString(index++, status.name());
			if (from != null) {
				this.dialect.setTimestamp(ps, index++, from);
			}
			ps.setLong(index++, -age.toMillis());
			ps.setInt(index, limit);
		}, (rs) -> {
			ids.add(rs.getLong(1));
			last[0] = this.dialect.getTimestamp(rs, 2);
		});
		int[] counts = Batches.batch(this.jdbc, this.sql.deleteFinished, ids, (ps, id) -> {
			ps.setLong(1, id);
			ps.setString(2, status.name());
		});
		boolean[] held = Batches.held(counts);
		List<Long> deleted = new ArrayList<>(ids.size());
		for (int i = 0; i < held.length; i++) {
			if (held[i]) {
				deleted.add(ids.get(i));
			}
		}
		forget(deleted);
		return new PrunedJobs(deleted.size(), last[0]);
	}

	/** What deleted jobs leave in other tables: their links, attempts, labels and steps. */
	private void forget(List<Long> deleted) {
		this.workflows.forget(deleted);
		this.attempts.forget(deleted);
		this.labels.forget(deleted);
		this.steps.forget(deleted);
	}

	/**
	 * Cancels the {@code QUEUED} or {@code WAITING} jobs among these ids (at most
	 * {@link IdChunks#MAX}) whose end settles nothing (no dependents, no batch), in one short
	 * transaction: where the database has {@code SKIP LOCKED} it locks them first and passes
	 * over rows another transaction holds (a claim taking them); where it has not, it takes
	 * the write lock first. Returns the jobs it cancelled; the others are for the cancel of
	 * one job, one by one.
	 */
	List<CancelledJob> cancelPlain(Collection<Long> ids) {
		return inOneChunk(ids, (chunk, lock) -> {
			List<CancelledJob> plain = this.jdbc.query(this.endSql.plainQueuedAmong(chunk.length, lock),
					(rs, row) -> new CancelledJob(rs.getLong(1), rs.getString(2), rs.getString(3)), chunk);
			if (plain.isEmpty()) {
				return List.<CancelledJob>of();
			}
			Object[] held = IdChunks.of(plain.stream().map(CancelledJob::id).toList()).get(0);
			int changed = this.jdbc.update(this.endSql.cancelPlainAmong(held.length), held);
			if (changed != plain.size()) {
				// Only where rows cannot be locked, and the write lock came first: never expected.
				throw new IllegalStateException("Cancelled " + changed + " of " + plain.size() + " jobs read as queued");
			}
			this.ends.notifyFinished(plain.stream().map(CancelledJob::id).toList());
			return plain;
		});
	}

	/**
	 * Deletes the finished jobs among these ids (at most {@link IdChunks#MAX} of them) in one
	 * short transaction, as the pruner does: where the database has {@code SKIP LOCKED} it
	 * locks them first, passing over rows another transaction holds; a job not finished is
	 * never deleted. Returns the ids it deleted, with their attempts, labels and links.
	 */
	List<Long> deleteFinished(Collection<Long> ids) {
		return inOneChunk(ids, (chunk, lock) -> {
			List<Long> finished = this.jdbc.queryForList(this.sql.finishedAmong(chunk.length, lock), Long.class,
					chunk);
			if (finished.isEmpty()) {
				return List.<Long>of();
			}
			Object[] held = IdChunks.of(finished).get(0);
			this.jdbc.update(this.sql.deleteFinishedAmong(held.length), held);
			forget(finished);
			return finished;
		});
	}

	/**
	 * Runs {@code work} on these ids as the parameters of one statement (at most
	 * {@link IdChunks#MAX}), in one short READ COMMITTED transaction (the caller's, if any)
	 * that takes the write lock first where the database needs it; {@code work} is told
	 * whether to lock the rows it reads, passing over those another transaction holds.
	 */
	private <T> List<T> inOneChunk(Collection<Long> ids, BiFunction<Object[], Boolean, List<T>> work) {
		Object[] chunk = IdChunks.one(ids);
		if (chunk.length == 0) {
			return List.of();
		}
		boolean lock = this.transactions.rowLocks();
		List<T> done = this.transactions.inCallerOrNewReadCommitted(() -> {
			takeWriteLockFirst();
			return work.apply(chunk, lock);
		});
		return (done != null) ? done : List.of();
	}

	/**
	 * Deletes the batches that finished longer than {@code age} ago, and whose callback (if
	 * any) finished that long ago too or is gone (by then their jobs are pruned too, when
	 * {@code age} is the longest retention); returns how many. A batch whose callback has not
	 * run yet is kept, so the callback finds it.
	 */
	int pruneBatches(Duration age) {
		// As pruneFinished: locked first, passing over a batch another transaction holds.
		Integer pruned = this.transactions
			.inCallerOrNewReadCommitted(() -> this.workflows.pruneBatches(age, BATCHES_PRUNED));
		return (pruned != null) ? pruned : 0;
	}

	/**
	 * On SQLite, takes the write lock as the transaction's first statement: a transaction that
	 * began with a read fails at its first write, at once (SQLITE_BUSY_SNAPSHOT, the busy
	 * timeout does not help), when another connection wrote in between, as the queue's own
	 * loops do all the time; one that begins with a write waits its turn. Elsewhere, nothing.
	 */
	private void takeWriteLockFirst() {
		if (this.writeLockFirst != null) {
			this.jdbc.update(this.writeLockFirst);
		}
	}

}
