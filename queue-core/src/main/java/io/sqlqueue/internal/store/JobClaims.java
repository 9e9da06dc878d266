package io.sqlqueue.internal.store;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;

/**
 * The claim of a queue without limits, by one of the three claim methods (DESIGN.md, "the
 * claim protocol"); a limited queue's claim is flow control's ({@link LimitedClaim}).
 * {@link QueueClaims} retries a claim that lost a race for a group's turn.
 * <p>
 * Through a backlog, where the database has a claim past a mark ({@link Dialect#claimReturningPast},
 * PostgreSQL), a claim starts where the one before it ended rather than at the head of the
 * ready jobs: while a long transaction holds the database's horizon, the head is the index
 * entries of every job claimed since, dead but not removable, and a claim from it would walk
 * them all. A mark is a hint, never a promise: a job may become ready behind it (one whose
 * enqueue committed late, with an earlier run_at; one released, retried or made due since;
 * one a claim that lost its race left queued). Priorities higher than the mark's are always
 * read from their head, so a higher priority still wins at once; a job of the mark's priority
 * behind the mark is claimed by the next claim from the head, which comes {@link #HEAD_EVERY}
 * after the last one, or {@link ReadPace#SHARE} times as long as the last one took if that is
 * longer, and as soon as a claim past the mark comes back short (then in the same call). Only
 * one claim at a time takes that scheduled turn at the head; the others go on past the mark.
 * Both matter while the horizon is held under a sustained load: the head is then every job
 * claimed since, a read from it takes longer with every minute (over half a second after three
 * minutes at 2,000 jobs/s), and every claim of every worker had been reading from the head
 * once the second was up, until nearly all of the database's time went to it. A claim from
 * the head that comes back short leaves no mark: without a backlog every claim starts at the
 * head, as before.
 */
final class JobClaims {

	/** How long a claim may start past a mark before one starts at the head again, at least. */
	static final Duration HEAD_EVERY = Duration.ofSeconds(1);

	private final JdbcTemplate jdbc;

	private final JobSql sql;

	private final Dialect dialect;

	private final ClaimMethod claimMethod;

	/**
	 * READ COMMITTED: under REPEATABLE READ, MySQL's locking reads take gap locks that make
	 * claims and enqueues deadlock.
	 */
	private final StoreTransactions transactions;

	/** Where the last full claim of a queue (and its handlers) ended, and when one last started at the head. */
	private final Map<List<String>, Mark> marks = new ConcurrentHashMap<>();

	JobClaims(StoreContext context, JobSql sql, ClaimMethod claimMethod) {
		this.jdbc = context.jdbc();
		this.sql = sql;
		this.dialect = context.dialect();
		this.claimMethod = claimMethod;
		this.transactions = context.transactions();
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
		String past = this.sql.claimReturningPast(request.handlers().size());
		if (past == null) {
			List<JobRecord> claimed = fromHead(request, token, request.limit());
			claimed.sort(JobClaims::runOrder);
			return claimed;
		}
		List<String> key = markKey(request);
		Mark mark = this.marks.get(key);
		long start = System.nanoTime();
		List<JobRecord> claimed;
		long nextHeadAt;
		if (mark != null && !takeHeadTurn(key, mark, start)) {
			claimed = pastMark(past, request, token, mark);
			nextHeadAt = mark.nextHeadAt();
			if (claimed.size() < request.limit()) {
				// Short: jobs may wait behind the mark; the rest comes from the head.
				long headStart = System.nanoTime();
				claimed.addAll(fromHead(request, token, request.limit() - claimed.size()));
				nextHeadAt = nextHeadAfter(headStart);
			}
		}
		else {
			claimed = fromHead(request, token, request.limit());
			nextHeadAt = nextHeadAfter(start);
		}
		claimed.sort(JobClaims::runOrder);
		if (claimed.size() < request.limit()) {
			this.marks.remove(key);
		}
		else {
			JobRecord last = claimed.get(claimed.size() - 1);
			this.marks.merge(key, new Mark(last.priority(), last.runAt(), last.id(), nextHeadAt),
					(earlier, mine) -> mine.withNextHeadAt(later(earlier.nextHeadAt(), mine.nextHeadAt())));
		}
		return claimed;
	}

	/**
	 * Whether this claim reads from the head now: when the mark's turn at the head has come
	 * and no other claim took it first. The taker moves the turn on by {@link #HEAD_EVERY} at
	 * once, so a claim that fails before it puts its own mark still leaves the next turn due.
	 */
	private boolean takeHeadTurn(List<String> key, Mark mark, long now) {
		return now - mark.nextHeadAt() >= 0
				&& this.marks.replace(key, mark, mark.withNextHeadAt(now + HEAD_EVERY.toNanos()));
	}

	private static long nextHeadAfter(long headStart) {
		return nextHeadAfter(headStart, System.nanoTime());
	}

	/**
	 * When the next scheduled claim from the head is due, after one that read from {@code start}
	 * to {@code end}. Not capped as the loops' passes are ({@link ReadPace#nextWithin}): its
	 * interval is no setting to keep near, and a job behind the mark is also claimed by the
	 * first claim past it that comes back short.
	 */
	static long nextHeadAfter(long start, long end) {
		return end + ReadPace.next(HEAD_EVERY, Duration.ofNanos(end - start)).toNanos();
	}

	private static long later(long nanos, long other) {
		return (nanos - other > 0) ? nanos : other;
	}

	private List<JobRecord> fromHead(ClaimRequest request, long token, int limit) {
		List<Object> args = new ArrayList<>(readyJobsArgs(request, limit));
		args.addAll(List.of(request.owner(), token, request.leaseMillis()));
		return new ArrayList<>(this.jdbc.query(this.sql.claimReturning(request.handlers().size()),
				new JobRows(this.dialect, false), args.toArray()));
	}

	private List<JobRecord> pastMark(String statement, ClaimRequest request, long token, Mark mark) {
		List<Object> ready = new ArrayList<>();
		ready.add(request.queue());
		ready.addAll(request.handlers());
		ready.add(request.queue());
		return new ArrayList<>(this.jdbc.query(statement, (ps) -> {
			int index = 1;
			for (int branch = 0; branch < 3; branch++) {
				for (Object arg : ready) {
					ps.setObject(index++, arg);
				}
				ps.setInt(index++, mark.priority());
				if (branch == 1) {
					this.dialect.setTimestamp(ps, index++, mark.runAt());
					ps.setLong(index++, mark.id());
				}
				ps.setInt(index++, request.limit());
			}
			ps.setInt(index++, request.limit());
			ps.setString(index++, request.owner());
			ps.setLong(index++, token);
			ps.setLong(index, request.leaseMillis());
		}, new JobRows(this.dialect, false)));
	}

	private static List<String> markKey(ClaimRequest request) {
		List<String> key = new ArrayList<>(request.handlers().size() + 1);
		key.add(request.queue());
		key.addAll(request.handlers());
		return List.copyOf(key);
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
		return readyJobsArgs(request, request.limit()).toArray();
	}

	private static List<Object> readyJobsArgs(ClaimRequest request, int limit) {
		List<Object> args = new ArrayList<>();
		args.add(request.queue());
		args.addAll(request.handlers());
		args.add(request.queue());
		args.add(limit);
		return args;
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

	/**
	 * The position in run order where a full claim ended (its last job's), and when the next
	 * claim from the head is due ({@link System#nanoTime()}).
	 */
	private record Mark(int priority, Instant runAt, long id, long nextHeadAt) {

		Mark withNextHeadAt(long nanos) {
			return new Mark(this.priority, this.runAt, this.id, nanos);
		}

	}

}
