package io.sqlqueue.internal.store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;

import static io.sqlqueue.internal.store.IdChunks.placeholders;

/**
 * The statements that put jobs into the table and take them out of the queue: the insert
 * ({@link JobInserts}) and every claim ({@link JobClaims}, and flow control's limited and fair
 * claims in {@link FlowStore}), written once and filled with the dialect's pieces:
 * {@code now} (the database's clock), {@code nowPlus} (clock plus bound milliseconds),
 * {@code json} and {@code timestamp} (bound parameters of those types). The other
 * statements of the jobs' table sit with their use: {@link JobEndSql} (an attempt's or a
 * job's end), {@link LeaseSql} (leases), {@link JobReadSql} (reads) and {@link JobBulkSql}
 * (pruning, bulk deletes, vacuum).
 */
final class JobSql {

	private final Dialect dialect;

	private final String table;

	private final String flowTable;

	/** Inserts one job; parameters: those of {@link JobInserts}' binding of a job. */
	final String insert;

	private final String insertInto;

	private final String insertRow;

	final @Nullable String insertAll;

	/** {@link #insertAll} for jobs that are all {@link NewJob#bare bare}, where the dialect has one. */
	final @Nullable String insertAllBare;

	/** The table's name as {@code regclass} reads it. */
	final String tableName;

	final String claimIfUnchanged;

	/** Claims one queued job by id, due or not (the test kit's "run this job now"); parameters: owner, token, lease millis, id. */
	final String claimById;

	// Per count of handlers: handler IN (?, …).
	private final Map<Integer, String> makeDue = new ConcurrentHashMap<>();

	/** {@link Dialect#writeLockFirst} of the jobs' table, or {@code null} where reads lock rows. */
	final @Nullable String writeLockFirst;

	// The claim's text depends only on how many handlers (or ids) it binds: built once per
	// count, not on every claim.
	private final Map<Integer, String> claimReturning = new ConcurrentHashMap<>();

	private final Map<Integer, Optional<String>> claimReturningPast = new ConcurrentHashMap<>();

	private final Map<Integer, String> lockReadyJobs = new ConcurrentHashMap<>();

	private final Map<Integer, String> readyJobsQuery = new ConcurrentHashMap<>();

	private final Map<Integer, String> claimIds = new ConcurrentHashMap<>();

	private final Map<CandidateRead, String> limitedCandidates = new ConcurrentHashMap<>();

	private final Map<Integer, String> claimQueued = new ConcurrentHashMap<>();

	private final Map<Integer, String> claimedWith = new ConcurrentHashMap<>();

	private final Map<Integer, String> lockQueued = new ConcurrentHashMap<>();

	private final Map<Integer, String> claimQueuedPassingOverLocked = new ConcurrentHashMap<>();

	private final boolean claimsPassingOverLockedInOne;

	/** The texts of the fair claim's reads, by their shape. */
	private final Map<String, String> fair = new ConcurrentHashMap<>();

	/** The largest job id there is; no parameters. */
	final String lastJobId;

	/**
	 * The concurrency keys of the next {@link #KEYS_SINCE_ROWS} jobs by id above one, each
	 * with the largest id read and whether a job of it is queued in a queue; read along the
	 * primary key, so that it costs what was enqueued since, whatever the backlog;
	 * parameters: queue, id.
	 */
	final String fairKeysSince;

	/** Jobs one look at the jobs enqueued since the last reads at most; the next goes on from there. */
	static final int KEYS_SINCE_ROWS = 10_000;

	JobSql(Dialect dialect, @Nullable String schema) {
		this.dialect = dialect;
		this.claimsPassingOverLockedInOne = dialect.claimQueuedPassingOverLocked("queue_job", "?", "?") != null;
		String checkedSchema = Names.requireSchema(schema);
		this.table = (checkedSchema != null) ? dialect.quote(checkedSchema) + ".queue_job" : "queue_job";
		this.flowTable = (checkedSchema != null) ? dialect.quote(checkedSchema) + ".queue_flow" : "queue_flow";
		String now = dialect.now();
		String nowPlus = dialect.nowPlusMillis();
		String json = dialect.jsonParameter();
		this.insertInto = """
				INSERT INTO %s (queue, handler, payload, status, priority, run_at, max_attempts, unique_key, group_key,
				                scheduled_for, deadline, created_at, updated_at, headers, concurrency_key)
				VALUES\s""".formatted(this.table);
		this.insertRow = "(?, ?, %s, 'QUEUED', ?, COALESCE(%s, %s), ?, ?, ?, %s, COALESCE(%s, %s), %s, %s, %s, ?)"
			.formatted(json, dialect.timestampParameter(), nowPlus, dialect.timestampParameter(),
					dialect.timestampParameter(), nowPlus, now, now, json);
		this.insert = this.insertInto + this.insertRow + dialect.insertIgnoringDuplicates();
		this.insertAll = dialect.insertAll(this.table);
		this.insertAllBare = dialect.insertAllBare(this.table);
		this.tableName = this.table;
		this.lastJobId = "SELECT MAX(id) FROM %s".formatted(this.table);
		this.fairKeysSince = """
				SELECT t.concurrency_key, MAX(t.id) AS last_id,
				       MAX(CASE WHEN t.queue = ? AND t.status = 'QUEUED' THEN 1 ELSE 0 END) AS queued
				FROM (SELECT concurrency_key, queue, status, id FROM %s WHERE id > ? ORDER BY id LIMIT %d) t
				GROUP BY t.concurrency_key""".formatted(this.table, KEYS_SINCE_ROWS);
		this.writeLockFirst = dialect.writeLockFirst(this.table);
		this.claimIfUnchanged = """
				UPDATE %s SET %s
				WHERE id = ? AND status = 'QUEUED' AND version = ?""".formatted(this.table, claimedColumns());
		this.claimById = """
				UPDATE %s SET %s
				WHERE id = ? AND status = 'QUEUED'""".formatted(this.table, claimedColumns());
	}

	/**
	 * Inserts {@code rows} jobs in one statement that returns their ids
	 * ({@link Dialect#insertReturningIds}), or {@code null} where the database has no such
	 * statement; parameters: those of {@link #insert}, for each job in turn. Built for each
	 * call, not kept: a text per count of rows would keep hundreds of texts of up to 100 KB.
	 */
	@Nullable String insertRows(int rows) {
		String returningIds = this.dialect.insertReturningIds();
		if (returningIds == null) {
			return null;
		}
		return this.insertInto + String.join(",\n       ", Collections.nCopies(rows, this.insertRow))
				+ this.dialect.insertIgnoringDuplicates() + returningIds;
	}

	/** Makes the delayed queued jobs of these handlers due now; parameters: handlers…. */
	String makeDue(int handlers) {
		return this.makeDue.computeIfAbsent(handlers, (count) -> """
				UPDATE %s SET run_at = %s, updated_at = %s, version = version + 1
				WHERE status = 'QUEUED' AND handler IN (%s) AND run_at > %s"""
			.formatted(this.table, this.dialect.now(), this.dialect.now(), placeholders(count), this.dialect.now()));
	}

	/** The claim in one statement; parameters: queue, handlers…, queue, limit, owner, token, lease millis. */
	String claimReturning(int handlers) {
		return this.claimReturning.computeIfAbsent(handlers,
				(count) -> this.dialect.claimReturning(this.table, readyJobs(count), claimedColumns()));
	}

	/**
	 * The claim in one statement past a mark ({@link Dialect#claimReturningPast}), or
	 * {@code null} where the database has none.
	 */
	@Nullable String claimReturningPast(int handlers) {
		return this.claimReturningPast.computeIfAbsent(handlers, (count) -> Optional
			.ofNullable(this.dialect.claimReturningPast(this.table, readyJobs(count), claimedColumns())))
			.orElse(null);
	}

	/**
	 * Candidates of a limited queue's claim, unlocked (the claim holds the queue's lock, so no
	 * other claim of the queue runs meanwhile): due jobs of the queue and handlers in run
	 * order, leaving out those of {@code excluded} concurrency keys, the {@code passedOver}
	 * jobs (whose rows another transaction held when this claim tried to take them) and, with
	 * {@code after}, those up to a position in that order. With {@code countRunning} every row
	 * carries the queue's running jobs ({@code queue_running}, counted once). Due at the claim's
	 * clock reading ({@link #readyJobsAt}). Parameters: with {@code countRunning} the queue,
	 * then the queue, handlers…, the claim's time, keys…, passed-over ids…, with
	 * {@code after} the position's priority, priority, run_at, run_at and id, then limit.
	 */
	String limitedCandidates(CandidateRead read) {
		return this.limitedCandidates.computeIfAbsent(read, (key) -> {
			String timestamp = this.dialect.timestampParameter();
			String notExcluded = (read.excluded() == 0) ? ""
					: "\n  AND (j.concurrency_key IS NULL OR j.concurrency_key NOT IN (%s))"
						.formatted(placeholders(read.excluded()));
			String notPassedOver = (read.passedOver() == 0) ? ""
					: "\n  AND j.id NOT IN (%s)".formatted(placeholders(read.passedOver()));
			String afterPosition = !read.after() ? "" : """

					  AND (j.priority < ? OR (j.priority = ? AND (j.run_at > %s OR (j.run_at = %s AND j.id > ?))))"""
				.formatted(timestamp, timestamp);
			String running = !read.countRunning() ? ""
					: ",\n    (SELECT COUNT(*) FROM %s r WHERE r.queue = ? AND r.status = 'RUNNING') AS queue_running"
						.formatted(this.table);
			return """
					SELECT j.*%s FROM %s j
					WHERE %s%s%s%s
					ORDER BY j.priority DESC, j.run_at, j.id
					LIMIT ?""".formatted(running, this.table, readyJobsAt(read.handlers()), notExcluded, notPassedOver,
					afterPosition);
		});
	}

	/** What a read of a limited queue's candidates binds and reads (see {@link #limitedCandidates}). */
	record CandidateRead(int handlers, int excluded, int passedOver, boolean after, boolean countRunning) {
	}

	/**
	 * The priority of a fair queue's first due job (at the claim's time), of these handlers,
	 * below a priority when {@code below}; parameters: queue, handlers…, time, [priority].
	 */
	String fairPriority(int handlers, boolean below) {
		return this.fair.computeIfAbsent("fairPriority:" + handlers + ":" + below, (key) -> """
				SELECT j.priority FROM %s j
				WHERE %s%s
				ORDER BY j.priority DESC, j.run_at, j.id
				LIMIT 1""".formatted(this.table, readyJobsAt(handlers), below ? "\n  AND j.priority < ?" : ""));
	}

	/**
	 * Whether a job of these handlers is due at a priority above one, read from the ready
	 * index above that priority only (the entries of the jobs claimed at it are not in the
	 * way); parameters: queue, handlers…, the claim's time, priority.
	 */
	String fairDueAbove(int handlers) {
		return this.fair.computeIfAbsent("fairDueAbove:" + handlers, (key) -> """
				SELECT j.priority FROM %s j
				WHERE %s
				  AND j.priority > ?
				LIMIT 1""".formatted(this.table, readyJobsAt(handlers)));
	}

	/**
	 * The concurrency keys with queued jobs of a queue at one priority, in key order, at most
	 * {@link #MAX_FAIR_KEYS}, found by skipping from key to key along the fair index (one
	 * probe per key, however many jobs each has), and a null first when jobs without a key are
	 * queued too; parameters: queue, priority, queue, priority, queue, priority.
	 */
	String fairKeys() {
		return this.fair.computeIfAbsent("fairKeys", (key) -> """
				WITH RECURSIVE k (fair_key) AS (
				    SELECT MIN(concurrency_key) FROM %1$s
				    WHERE status = 'QUEUED' AND queue = ? AND priority = ?
				  UNION ALL
				    SELECT (SELECT MIN(j.concurrency_key) FROM %1$s j
				            WHERE j.status = 'QUEUED' AND j.queue = ? AND j.priority = ? AND j.concurrency_key > k.fair_key)
				    FROM k WHERE k.fair_key IS NOT NULL
				)
				SELECT NULL AS fair_key FROM (
				    SELECT 1 AS one FROM %1$s
				    WHERE status = 'QUEUED' AND queue = ? AND priority = ? AND concurrency_key IS NULL
				    LIMIT 1) n
				UNION ALL
				SELECT fair_key FROM (SELECT fair_key FROM k WHERE fair_key IS NOT NULL LIMIT %2$d) fk""".formatted(
					this.table, MAX_FAIR_KEYS));
	}

	private String fairHead(int handlers, String key, int arm) {
		String timestamp = this.dialect.timestampParameter();
		return """
				SELECT * FROM (SELECT j.* FROM %s j
				    WHERE %s
				      AND j.priority = ? AND %s
				      AND j.run_at >= %s AND (j.run_at > %s OR j.id > ?)
				    ORDER BY j.run_at, j.id
				    LIMIT ?) h%d""".formatted(this.table, readyJobsAt(handlers), key, timestamp, timestamp, arm);
	}

	/**
	 * Keys a fair claim takes turns among at one priority at most: MariaDB's recursion stops
	 * at 1,000 steps by default ({@code max_recursive_iterations}), MySQL's fails.
	 */
	static final int MAX_FAIR_KEYS = 999;

	/**
	 * The first due jobs of some keys of a fair queue at one priority, each key's in run order
	 * (its own arm, so that each reads its key's first jobs from the fair index and no more):
	 * {@code keyed} keys and, with {@code withoutKey}, the jobs without a key, each after a
	 * position in run order, due at the claim's time; parameters per arm: queue, handlers…,
	 * time, priority, [key], run_at, run_at, id, limit. {@code run_at >= ?} follows from the condition after it; it is there
	 * so that the read starts at the position in the index on every database (PostgreSQL
	 * took the {@code OR} alone as a filter, and walked the key's range from its head).
	 */
	String fairHeads(int handlers, int keyed, boolean withoutKey) {
		return this.fair.computeIfAbsent("fairHeads:" + handlers + ":" + keyed + ":" + withoutKey, (key) -> {
			List<String> arms = new ArrayList<>();
			if (withoutKey) {
				arms.add(fairHead(handlers, "j.concurrency_key IS NULL", 0));
			}
			for (int i = 1; i <= keyed; i++) {
				arms.add(fairHead(handlers, "j.concurrency_key = ?", i));
			}
			return String.join("\nUNION ALL\n", arms);
		});
	}

	/**
	 * Claims these jobs if they are still queued, started at a given time; parameters: owner,
	 * token, lease millis, start, ids…. The status is tested as {@code (…) IS TRUE} (the same,
	 * as status is never null) so that the ready jobs' partial index cannot serve the
	 * statement: planned on statistics taken while the queue was idle, PostgreSQL read that
	 * index whole (thousands of ready jobs) for every claim of a hundred, instead of the
	 * primary key (as the completion flush did, see {@link io.sqlqueue.internal.store.postgresql.PostgresDialect#completeAll}).
	 */
	String claimQueued(int ids) {
		return this.claimQueued.computeIfAbsent(ids, (count) -> """
				UPDATE %s SET %s
				WHERE id IN (%s) AND (status = 'QUEUED') IS TRUE"""
			.formatted(this.table, claimedColumns(this.dialect.timestampParameter()), placeholders(count)));
	}

	/**
	 * Claims these jobs if they are still queued, passing over those whose rows another
	 * transaction holds, in one statement ({@link Dialect#claimQueuedPassingOverLocked}), or
	 * {@code null} where the dialect has none; parameters: ids…, then owner, token, lease
	 * millis, start; returns the ids it claimed.
	 */
	@Nullable String claimQueuedPassingOverLocked(int ids) {
		if (!this.claimsPassingOverLockedInOne) {
			return null;
		}
		return this.claimQueuedPassingOverLocked.computeIfAbsent(ids,
				(count) -> this.dialect.claimQueuedPassingOverLocked(this.table, placeholders(count),
						claimedColumns(this.dialect.timestampParameter())));
	}

	/**
	 * Of these jobs, the queued ones, locked, passing over those another transaction has
	 * locked (a caller's that enqueued a job to run after one); parameters: ids….
	 */
	String lockQueued(int ids) {
		return this.lockQueued.computeIfAbsent(ids,
				(count) -> "SELECT id FROM %s WHERE id IN (%s) AND status = 'QUEUED'\nFOR UPDATE SKIP LOCKED"
					.formatted(this.table, placeholders(count)));
	}

	/** Of these jobs, those a claim holds by its token; parameters: token, ids…. */
	String claimedWith(int ids) {
		return this.claimedWith.computeIfAbsent(ids,
				(count) -> "SELECT id FROM %s WHERE lease_token = ? AND status = 'RUNNING' AND id IN (%s)"
					.formatted(this.table, placeholders(count)));
	}

	/** Candidates, locked; parameters: queue, handlers…, queue, limit. */
	String lockReadyJobs(int handlers) {
		return this.lockReadyJobs.computeIfAbsent(handlers,
				(count) -> readyJobsQuery(count) + "\nFOR UPDATE SKIP LOCKED");
	}

	/** Candidates, unlocked, for compare-and-set; parameters: queue, handlers…, queue, limit. */
	String readyJobsQuery(int handlers) {
		return this.readyJobsQuery.computeIfAbsent(handlers, (count) -> """
				SELECT j.*, %s AS claimed_at FROM %s j
				WHERE %s
				ORDER BY j.priority DESC, j.run_at, j.id
				LIMIT ?""".formatted(this.dialect.now(), this.table, readyJobs(count)));
	}

	/** Claims locked candidates; parameters: owner, token, lease millis, ids…. */
	String claimIds(int ids) {
		return this.claimIds.computeIfAbsent(ids,
				(count) -> "UPDATE %s SET %s\nWHERE id IN (%s)".formatted(this.table, claimedColumns(),
						placeholders(count)));
	}

	/**
	 * Ready for a claim of a queue without limits: {@link #readyJobsOf ready}, while the queue
	 * has no flow row (no limits; parameter: the queue again). A queue that got limits since
	 * this instance last looked is then claimed by nothing but its limited claim.
	 */
	private String readyJobs(int handlers) {
		return readyJobsOf(handlers) + "\n      AND NOT EXISTS (SELECT 1 FROM %s f WHERE f.queue = ?)".formatted(this.flowTable);
	}

	/**
	 * Due, of this queue and these handlers, and first in its group: a job with a group key
	 * waits while another of its group runs or an older one of its group waits.
	 */
	private String readyJobsOf(int handlers) {
		return readyJobsOf(handlers, this.dialect.now());
	}

	/**
	 * {@link #readyJobsOf Ready} at a time given, the clock reading of a limited or fair
	 * claim's lock, at which the claim starts the jobs it reads (and counts them in its rate
	 * windows); parameters: queue, handlers…, that time. Judged by the database's clock at
	 * each statement instead, a job due between the lock and the read was started before it
	 * was due (MariaDB and SQLite read the clock per statement): a parked durable job then
	 * found its sleep not over, and parked again.
	 */
	private String readyJobsAt(int handlers) {
		return readyJobsOf(handlers, this.dialect.timestampParameter());
	}

	private String readyJobsOf(int handlers, String now) {
		return """
				j.status = 'QUEUED' AND j.queue = ? AND j.handler IN (%s) AND j.run_at <= %s
				      AND (j.group_key IS NULL OR NOT EXISTS (
				          SELECT 1 FROM %s g
				          WHERE g.group_key = j.group_key AND g.id <> j.id
				            AND (g.status = 'RUNNING' OR (g.status = 'QUEUED' AND g.id < j.id))))"""
			.formatted(placeholders(handlers), now, this.table);
	}

	/** Parameters: owner, token, lease millis. */
	private String claimedColumns() {
		return claimedColumns(this.dialect.now());
	}

	/** Parameters: owner, token, lease millis, and those of {@code startedAt}. */
	private String claimedColumns(String startedAt) {
		String now = this.dialect.now();
		return """
				status = 'RUNNING', attempts = attempts + 1, lease_owner = ?, lease_token = ?,
				    lease_expires_at = %s, started_at = %s, updated_at = %s, version = version + 1"""
			.formatted(this.dialect.nowPlusMillis(), startedAt, now);
	}

}
