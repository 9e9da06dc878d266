package io.sqlqueue.internal.store;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.ExpiredJob;
import io.sqlqueue.JobStatus;
import io.sqlqueue.ReapedJob;

/**
 * The ends of jobs the queue writes on its own, and what they settle: an attempt's end other
 * than success (a retry, a failure, a cancel, a give-back), the sweeps' ends (the reaper's,
 * the deadline sweep's), an operator's cancel; the settling of a job's end (its dependents,
 * its batch, {@link WorkflowStore}) and the announcements of jobs that finished. Every write is
 * fenced; the store calls it, and the transactions are {@link StoreTransactions}'.
 */
final class JobEnds {

	private static final Logger logger = LoggerFactory.getLogger(JobEnds.class);

	private final JdbcTemplate jdbc;

	private final JobEndSql sql;

	private final LeaseSql leaseSql;

	private final Dialect dialect;

	private final StoreTransactions transactions;

	private final WorkflowStore workflows;

	private final @Nullable String notifyChannel;

	private final @Nullable WorkAnnouncer announcer;

	private final AttemptHistory attempts;

	private final List<SettleListener> settleListeners = new CopyOnWriteArrayList<>();

	JobEnds(StoreContext context, JobEndSql sql, LeaseSql leaseSql, WorkflowStore workflows, AttemptHistory attempts,
			@Nullable String notifyChannel, @Nullable WorkAnnouncer announcer) {
		this.jdbc = context.jdbc();
		this.attempts = attempts;
		this.sql = sql;
		this.leaseSql = leaseSql;
		this.dialect = context.dialect();
		this.transactions = context.transactions();
		this.workflows = workflows;
		this.notifyChannel = notifyChannel;
		this.announcer = announcer;
	}

	void addSettleListener(SettleListener listener) {
		this.settleListeners.add(listener);
	}

	void removeSettleListener(SettleListener listener) {
		this.settleListeners.remove(listener);
	}

	/** Puts the job back to wait {@code delayMillis} (on the database's clock) before its next attempt. */
	boolean reschedule(Lease lease, String error, long delayMillis) {
		return attemptEnd(this.sql.reschedule, lease.jobId(), delayMillis, error, lease.jobId(), lease.token());
	}

	/**
	 * Parks the running job until the wake time of its record of this kind and name, or for
	 * {@code delayMillis} without a record: {@code QUEUED} again, no attempt spent, no row
	 * of history (a park is no attempt's end).
	 */
	boolean park(Lease lease, @Nullable String kind, @Nullable String name, long delayMillis) {
		if (kind != null) {
			return attemptEnd(null, this.sql.parkOnRecord, lease.jobId(), lease.jobId(), kind, name, lease.jobId(),
					lease.token());
		}
		return attemptEnd(null, this.sql.parkFor, lease.jobId(), delayMillis, lease.jobId(), lease.token());
	}

	/** Ends a running attempt for good, in this final state. */
	boolean finish(Lease lease, JobStatus status, String error) {
		boolean held = attemptEnd(this.sql.finish, lease.jobId(), status.name(), error, lease.jobId(),
				lease.token());
		if (held) {
			notifyFinished(List.of(lease.jobId()));
		}
		return held;
	}

	/**
	 * Gives back a claimed job that never started; the claim does not count as an attempt.
	 * Always in a transaction of its own, whoever calls: the job is this instance's, not the
	 * caller's. A pause in a caller's transaction gives back this instance's claimed-ahead
	 * jobs on the caller's thread; had the give-back joined that transaction, a rollback would
	 * leave them {@code RUNNING} with no worker renewing their leases, to be reaped as crashes.
	 */
	boolean release(Lease lease) {
		// A give-back is no attempt: no row of history.
		Supplier<Boolean> giveBack = () -> end(this.transactions::inCallerOrNewForSettling, this.sql.release, null,
				lease.jobId(), lease.jobId(), lease.token());
		return Boolean.TRUE.equals(
				this.transactions.rowLocks() ? bounded(giveBack) : this.transactions.inNewTransaction(giveBack));
	}

	/** See {@link QueueStore#giveBackStopped}. */
	boolean giveBackStopped(Lease lease, String error) {
		// No attempt spent, so no row of history: the next claim counts the same attempt again.
		Supplier<Boolean> giveBack = () -> end(this.transactions::inCallerOrNewForSettling, this.sql.stopped, null,
				lease.jobId(), error, lease.jobId(), lease.token());
		return Boolean.TRUE.equals(
				this.transactions.rowLocks() ? bounded(giveBack) : this.transactions.inNewTransaction(giveBack));
	}

	/** Cancels a {@code QUEUED} or {@code WAITING} job, and settles what it ends. */
	boolean cancel(long id) {
		boolean cancelled = end(this.sql.cancel, id, id);
		if (cancelled) {
			notifyFinished(List.of(id));
		}
		return cancelled;
	}

	/**
	 * Writes the end of an attempt, or of a queued job, with {@code statement} (fenced; its
	 * parameters {@code args}): for a plain job one statement, as it always was; for a job
	 * whose end settles others, the same statement and the settling, in one transaction (the
	 * caller's, when there is one). Returns whether the statement changed the row.
	 */
	boolean end(String statement, long id, Object... args) {
		return end(this.transactions::inCallerOrNewForSettling, statement, null, id, args);
	}

	/**
	 * As {@link #end(String, long, Object...)} for the end of an attempt: the attempt's row of
	 * history ({@link AttemptHistory}) is written in the same transaction, after the fenced
	 * write changed the job's row, and only then.
	 */
	boolean endAttempt(String statement, long id, Object... args) {
		return end(this.transactions::inCallerOrNewForSettling, statement, AttemptHistory.End.ENDED, id, args);
	}

	/** As {@link #end(String, long, Object...)}, the settling in {@code settling}'s transaction. */
	private boolean end(Function<Supplier<Boolean>, Boolean> settling, String statement,
			AttemptHistory.@Nullable End attempt, long id, Object... args) {
		if (attempt == null || !this.attempts.isEnabled()) {
			if (this.jdbc.update(this.sql.plain(statement), args) == 1) {
				return true;
			}
		}
		else if (Boolean.TRUE.equals(settling.apply(() -> {
			// The history row in the write's transaction (in a sweep's, under its savepoint): a
			// write that lost its fence writes none.
			if (this.jdbc.update(this.sql.plain(statement), args) != 1) {
				return false;
			}
			this.attempts.record(attempt, id);
			return true;
		}))) {
			return true;
		}
		return Boolean.TRUE.equals(settling.apply(() -> {
			if (this.jdbc.update(statement, args) != 1) {
				return false;
			}
			if (attempt != null) {
				this.attempts.record(attempt, id);
			}
			this.workflows.statusOf(id)
				.filter(JobStatus::isFinished)
				.ifPresent((finished) -> settle(List.of(new WorkflowStore.Ended(id, finished))));
			return true;
		}));
	}

	/**
	 * Runs a sweep: where the database has {@code SKIP LOCKED}, in a short READ COMMITTED
	 * transaction of its own whose first statement locks the rows the sweep will end, passing
	 * over those another transaction holds (a caller's open transaction that enqueued a job to
	 * run after one of them, or cancels it; a worker frozen in its completion), so that the
	 * sweep never waits for them and ends them at a later pass. What it locks besides while
	 * it settles the jobs' ends it waits for at most {@link StoreTransactions#OWN_LOCK_WAIT}; a job whose
	 * settling waits longer is left for the next pass ({@link #endInSweep}). SQLite has one
	 * writer at a time: its sweep writes when no other transaction does, within its busy
	 * timeout. The function is told whether its rows are to be locked.
	 */
	private <T> List<T> sweep(Function<Boolean, List<T>> pass) {
		if (!this.transactions.rowLocks()) {
			return pass.apply(false);
		}
		return bounded(() -> pass.apply(true));
	}

	/**
	 * Runs {@code work} in a short READ COMMITTED transaction of its own whose waits for a row
	 * another transaction holds last at most {@link StoreTransactions#OWN_LOCK_WAIT}, then fail as a
	 * {@code CannotAcquireLockException}. Only where the database has row locks.
	 */
	private <T> T bounded(Supplier<T> work) {
		return this.transactions.inNewBoundedLockWait(this.jdbc, StoreTransactions.OWN_LOCK_WAIT, work);
	}

	/**
	 * Writes the end of an attempt as {@link #end(String, long, Object...)} does, when the
	 * queue writes it on its own (a worker's failure or retry, a cancel, a give-back, the
	 * timeout sweep's): where the database has row locks, its wait for a row another
	 * transaction holds (a caller's open transaction that enqueued a job to run after this one)
	 * is bounded by {@link #bounded}, and the write fails as a transient error that the
	 * worker tries again later, instead of holding its thread (the timeout sweep's, the
	 * heartbeat's cancel writes) until that transaction ends. Inside a transaction (an
	 * operator's in the caller's) it is {@code end} as it was.
	 */
	private boolean attemptEnd(String statement, long id, Object... args) {
		return attemptEnd(AttemptHistory.End.ENDED, statement, id, args);
	}

	private boolean attemptEnd(AttemptHistory.@Nullable End attempt, String statement, long id, Object... args) {
		if (!this.transactions.rowLocks() || StoreTransactions.anyActive()) {
			return end(this.transactions::inCallerOrNewForSettling, statement, attempt, id, args);
		}
		return Boolean.TRUE.equals(
				bounded(() -> end(this.transactions::inCallerOrNewForSettling, statement, attempt, id, args)));
	}

	/**
	 * Ends one of the jobs a sweep found (the reaper's, the deadline sweep's) as {@link #end}
	 * does, so that whatever happens to this one the sweep ends the others: in the sweep's
	 * transaction its end and settling run under a savepoint, and a failure, logged, leaves
	 * the job as it was for the next pass and the transaction usable. False when it failed.
	 */
	private boolean endInSweep(String statement, AttemptHistory.@Nullable End attempt, long id, Object... args) {
		Function<Supplier<Boolean>, Boolean> settling = StoreTransactions.anyActive()
				? this.transactions::inSavepoint : this.transactions::inCallerOrNewForSettling;
		try {
			return end(settling, statement, attempt, id, args);
		}
		catch (PessimisticLockingFailureException ex) {
			logger.info("Job {} is left as it was until the next pass: settling its end needs a row that another "
					+ "transaction has held for longer than {} ({})", id, StoreTransactions.OWN_LOCK_WAIT, ex.getMessage());
			return false;
		}
		catch (RuntimeException ex) {
			logger.warn("Could not end job {} and settle what its end settles; it is left as it was until the next "
					+ "pass, and the other jobs are ended meanwhile", id, ex);
			return false;
		}
	}

	/** See {@link QueueStore#reapExpired}. */
	List<ReapedJob> reapExpired(int limit, int maxCrashes) {
		return sweep((locked) -> reap(locked ? this.leaseSql.lockExpiredLeases : this.leaseSql.expiredLeases, limit,
				maxCrashes));
	}

	/**
	 * Where the database has {@code SKIP LOCKED}, the expired rows are locked first and rows
	 * locked by someone else are passed over: a worker that froze inside a transaction (a
	 * completion, a transactional handler) holds its row locks, and waiting for them would
	 * stall the reaper, and every job it should re-queue, for as long as the freeze lasts.
	 * The row stays the frozen worker's; nobody else can run it meanwhile.
	 */
	private List<ReapedJob> reap(String expiredLeases, int limit, int maxCrashes) {
		List<ReapedJob> reaped = new ArrayList<>();
		Set<Long> leftAtStop = new HashSet<>();
		this.jdbc.query(expiredLeases, (rs) -> {
			// An instance that stopped while the handler ran, and said so, did not crash.
			boolean stopped = rs.getBoolean("stopped");
			int crashes = rs.getInt("crashes") + (stopped ? 0 : 1);
			boolean cancelRequested = this.dialect.getTimestamp(rs, "cancel_requested_at") != null;
			JobStatus status;
			String error;
			if (cancelRequested) {
				status = JobStatus.CANCELLED;
				error = EndReasons.CANCELLED_WHILE_RUNNING + "; its worker was lost before it stopped";
			}
			else if (stopped) {
				status = (rs.getInt("attempts") >= rs.getInt("max_attempts")) ? JobStatus.FAILED : JobStatus.QUEUED;
				error = EndReasons.LEFT_AT_STOP;
			}
			else if (crashes >= maxCrashes) {
				status = JobStatus.FAILED;
				error = "Worker lost " + crashes + " times (" + EndReasons.LEASE_EXPIRED.toLowerCase(Locale.ROOT)
						+ "); sqlqueue.retry.max-crashes is " + maxCrashes;
			}
			else {
				status = (rs.getInt("attempts") >= rs.getInt("max_attempts")) ? JobStatus.FAILED : JobStatus.QUEUED;
				error = EndReasons.LEASE_EXPIRED;
			}
			reaped.add(new ReapedJob(rs.getLong("id"), rs.getString("queue"), rs.getString("handler"),
					String.valueOf(rs.getString("lease_owner")), status, crashes, rs.getLong("lease_token"), error));
			if (stopped) {
				leftAtStop.add(rs.getLong("id"));
			}
		}, limit);
		List<ReapedJob> done = new ArrayList<>(reaped.size());
		for (ReapedJob job : reaped) {
			boolean stopped = leftAtStop.contains(job.id());
			if (endInSweep(this.sql.reap, AttemptHistory.End.LEASE_EXPIRED, job.id(), job.status().name(),
					job.status().name(), job.error(), stopped ? 0 : 1, job.id(), job.token())) {
				done.add(job);
				if (stopped) {
					this.jdbc.update(this.leaseSql.dropLeaseExtension, job.id(), job.token());
				}
			}
		}
		notifyFinished(done.stream().filter((job) -> job.status().isFinished()).map(ReapedJob::id).toList());
		return done;
	}

	/** See {@link QueueStore#expirePassedDeadlines}. */
	List<ExpiredJob> expirePassedDeadlines(int limit) {
		return sweep((locked) -> expire(locked ? this.sql.lockPassedDeadlines : this.sql.passedDeadlines, limit));
	}

	private List<ExpiredJob> expire(String passedDeadlines, int limit) {
		List<ExpiredJob> passed = this.jdbc.query(passedDeadlines, (rs, row) -> {
			Instant deadline = this.dialect.getTimestamp(rs, "deadline");
			if (deadline == null) {
				throw new IllegalStateException("Column deadline is null");
			}
			return new ExpiredJob(rs.getLong("id"), rs.getString("queue"), rs.getString("handler"), deadline);
		}, limit);
		List<ExpiredJob> expired = new ArrayList<>(passed.size());
		for (ExpiredJob job : passed) {
			if (endInSweep(this.sql.expire, null, job.id(), EndReasons.deadlinePassed(job.deadline()), job.id())) {
				expired.add(job);
			}
		}
		notifyFinished(expired.stream().map(ExpiredJob::id).toList());
		return expired;
	}

	/**
	 * Settles these ends in the current transaction, announces the jobs it cancelled and (once
	 * it commits, {@link WorkAnnouncer}) the queues that got due jobs, where the database can,
	 * and tells the settle listeners once it commits.
	 */
	void settle(List<WorkflowStore.Ended> ends) {
		if (ends.isEmpty()) {
			return;
		}
		WorkflowStore.Settled settled = this.workflows.settle(ends);
		notifyFinished(settled.cancelled.stream().map(WorkflowStore.Ended::id).toList());
		if (this.announcer != null) {
			this.announcer.afterCommit(settled.releasedQueues);
		}
		if (settled.releasedQueues.isEmpty() && settled.cancelledJobs.isEmpty()) {
			return;
		}
		Runnable tell = () -> this.settleListeners.forEach((listener) -> {
			try {
				if (!settled.releasedQueues.isEmpty()) {
					listener.released(Set.copyOf(settled.releasedQueues));
				}
				settled.cancelledJobs.forEach((job) -> listener.cancelled(job[0], job[1]));
			}
			catch (RuntimeException ex) {
				logger.warn("A settle listener failed", ex);
			}
		});
		AfterCommit.run(tell);
	}

	/**
	 * Tells every instance, where the database can (PostgreSQL's {@code NOTIFY}, on commit of
	 * the caller's transaction), that those of these jobs that someone awaits (their
	 * {@code awaited} column, read after their end was written) reached a final state, so
	 * that their waiters read them at once instead of at their next poll. Only awaited jobs:
	 * a {@code NOTIFY} serializes the commits of every announcing transaction, too dear for
	 * every end.
	 */
	void notifyFinished(Collection<Long> ids) {
		if (this.notifyChannel == null || ids.isEmpty()) {
			return;
		}
		List<Long> awaited = new ArrayList<>();
		for (Object[] chunk : IdChunks.of(ids)) {
			awaited.addAll(this.jdbc.queryForList(this.sql.awaitedAmong(chunk.length), Long.class, chunk));
		}
		announceFinished(awaited);
	}

	/** Sends the {@code NOTIFY} of {@link #notifyFinished} for these awaited jobs. */
	void announceFinished(Collection<Long> ids) {
		if (this.notifyChannel != null && !ids.isEmpty()) {
			for (String payload : NotifyPayloads.finished(ids)) {
				this.jdbc.query(this.dialect.notifyStatement(), (rs) -> {
				}, this.notifyChannel, payload);
			}
		}
	}

	/** Sends the {@code NOTIFY} that asks the instance running the job to stop it. */
	void announceCancel(long id) {
		if (this.notifyChannel != null) {
			this.jdbc.query(this.dialect.notifyStatement(), (rs) -> {
			}, this.notifyChannel, NotifyPayloads.cancel(id));
		}
	}

}
