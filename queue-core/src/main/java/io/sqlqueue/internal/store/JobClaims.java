package io.sqlqueue.internal.store;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;

/**
 * The claim of a queue without limits, by one of the three claim methods (DESIGN.md, "the
 * claim protocol"); a limited queue's claim is flow control's ({@link LimitedClaim}). {@link JobStore} retries a
 * claim that lost a race for a group's turn.
 */
final class JobClaims {

	private final JdbcTemplate jdbc;

	private final JobSql sql;

	private final Dialect dialect;

	private final ClaimMethod claimMethod;

	/**
	 * READ COMMITTED: under REPEATABLE READ, MySQL's locking reads take gap locks that make
	 * claims and enqueues deadlock.
	 */
	private final StoreTransactions transactions;

	JobClaims(JdbcTemplate jdbc, JobSql sql, Dialect dialect, ClaimMethod claimMethod,
			StoreTransactions transactions) {
		this.jdbc = jdbc;
		this.sql = sql;
		this.dialect = dialect;
		this.claimMethod = claimMethod;
		this.transactions = transactions;
	}

	/** Claims due jobs of a queue without limits by this store's claim method. */
	List<JobRecord> claim(ClaimRequest request, long token) {
		return switch (this.claimMethod) {
			case UPDATE_RETURNING -> claimReturning(request, token);
			case LOCK_THEN_UPDATE -> this.transactions.inCallerOrNewReadCommitted(() -> lockThenUpdate(request, token));
			case COMPARE_AND_SET -> compareAndSet(request, token);
		};
	}

	private List<JobRecord> claimReturning(ClaimRequest request, long token) {
		List<Object> args = new ArrayList<>(List.of(readyJobsArgs(request)));
		args.addAll(List.of(request.owner(), token, request.leaseMillis()));
		List<JobRecord> claimed = new ArrayList<>(this.jdbc.query(this.sql.claimReturning(request.handlers().size()),
				new JobRows(this.dialect, false), args.toArray()));
		claimed.sort(JobClaims::runOrder);
		return claimed;
	}

	private List<JobRecord> lockThenUpdate(ClaimRequest request, long token) {
		List<JobRecord> candidates = this.jdbc.query(this.sql.lockReadyJobs(request.handlers().size()),
				new JobRows(this.dialect, true), readyJobsArgs(request));
		if (candidates.isEmpty()) {
			return candidates;
		}
		List<Object> args = new ArrayList<>(List.of(request.owner(), token, request.leaseMillis()));
		candidates.forEach((job) -> args.add(job.id()));
		this.jdbc.update(this.sql.claimIds(candidates.size()), args.toArray());
		return candidates.stream().map((job) -> claimed(job, request.owner(), token)).toList();
	}

	private List<JobRecord> compareAndSet(ClaimRequest request, long token) {
		List<JobRecord> candidates = this.jdbc.query(this.sql.readyJobsQuery(request.handlers().size()),
				new JobRows(this.dialect, true), readyJobsArgs(request));
		List<JobRecord> claimed = new ArrayList<>(candidates.size());
		for (JobRecord job : candidates) {
			try {
				int updated = this.jdbc.update(this.sql.claimIfUnchanged, request.owner(), token,
						request.leaseMillis(), job.id(), job.version());
				if (updated == 1) {
					claimed.add(claimed(job, request.owner(), token));
				}
			}
			catch (DuplicateKeyException ex) {
				// Another job of its group started meanwhile: this one waits for its turn.
			}
		}
		return claimed;
	}

	private static Object[] readyJobsArgs(ClaimRequest request) {
		List<Object> args = new ArrayList<>();
		args.add(request.queue());
		args.addAll(request.handlers());
		args.add(request.queue());
		args.add(request.limit());
		return args.toArray();
	}

	/** The row as the claim left it, without reading it again. */
	static JobRecord claimed(JobRecord job, String owner, long token) {
		return claimed(job, owner, token, job.startedAt());
	}

	/** The row as the claim left it, started at {@code startedAt} (which the claim wrote). */
	static JobRecord claimed(JobRecord job, String owner, long token, @Nullable Instant startedAt) {
		return new JobRecord(job.id(), job.queue(), job.handler(), job.payload(), JobStatus.RUNNING, job.priority(),
				job.runAt(), job.attempts() + 1, job.maxAttempts(), owner, token, null, job.version() + 1,
				job.uniqueKey(), job.groupKey(), job.lastError(), job.result(), job.createdAt(), startedAt, startedAt,
				job.finishedAt(), job.scheduledFor(), job.deadline(), job.cancelRequestedAt(), job.crashes(),
				job.headers(), job.concurrencyKey());
	}

	/** The order in which claimed jobs should run: priority, due time, id. */
	static int runOrder(JobRecord a, JobRecord b) {
		int byPriority = Integer.compare(b.priority(), a.priority());
		if (byPriority != 0) {
			return byPriority;
		}
		int byDue = a.runAt().compareTo(b.runAt());
		return (byDue != 0) ? byDue : Long.compare(a.id(), b.id());
	}

}
