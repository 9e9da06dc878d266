package io.sqlqueue.internal.store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;

/**
 * Every statement the queue runs, written once and filled with the dialect's pieces:
 * {@code now} (the database's clock), {@code nowPlus} (clock plus bound milliseconds),
 * {@code json} and {@code timestamp} (bound parameters of those types).
 * <p>
 * Every write after a claim is fenced: {@code WHERE id = ? AND lease_token = ? AND
 * status = 'RUNNING'}. The writes that end an attempt (complete, reschedule, fail) keep its
 * token on the row, so that an attempt whose write committed but whose answer was lost can
 * tell "recorded by me" from "handed to someone else" ({@link #finishedUnder}); only a new
 * claim, the reaper and a release change or clear it.
 */
final class JobSql {

	private final Dialect dialect;

	private final String table;

	private final String flowTable;

	/** Inserts one job; parameters: those of {@link JobInserts}' binding of a job. */
	final String insert;

	private final String insertInto;

	private final String insertRow;

	final String complete;

	final String completeWhileLeased;

	final @Nullable String completeAll;

	/** As {@link #completeAll}, recording the attempts it completes ({@link AttemptHistory}). */
	final @Nullable String completeAllRecording;

	final @Nullable String insertAll;

	/** {@link #insertAll} for jobs that are all {@link NewJob#bare bare}, where the dialect has one. */
	final @Nullable String insertAllBare;

	final @Nullable String vacuum;

	/**
	 * {@link #vacuum} one table at a time, for a schema older than the code (one statement
	 * over a list fails whole when a table of it is missing).
	 */
	final List<String> vacuumEach;

	/** The horizon ({@link Dialect#horizonQuery}), where the queue vacuums; else {@code null}. */
	final @Nullable String horizon;

	/** The table's name as {@code regclass} reads it. */
	final String tableName;

	final String reschedule;

	/** Parks a running job until the wake time of its record (docs/durable-steps.md): no attempt spent. */
	final String parkOnRecord;

	/** Parks a running job for bound milliseconds: a snooze. */
	final String parkFor;

	/** Ends a running attempt for good; parameters: status, last error, id, token. */
	final String finish;

	final String release;

	/**
	 * Gives back a running job whose instance stopped and interrupted its handler: as
	 * {@link #release}, with a last error; parameters: last error, id, token.
	 */
	final String stopped;

	/** Extends one lease, fenced; parameters: lease millis, id, token. */
	final String extendLease;

	/** The dialect's one statement that extends many leases, passing over locked rows, or {@code null}. */
	final @Nullable String extendLeases;

	final String expiredLeases;

	final String lockExpiredLeases;

	/**
	 * Writes one lease's expiry beside its row ({@code queue_lease_extension}), after
	 * {@link #dropLeaseExtension}; parameters: id, token, lease millis.
	 */
	final String extendLeaseBeside;

	/** Deletes one lease's extension; parameters: id, token. */
	final String dropLeaseExtension;

	/** Deletes the extensions past their expiry (not the notes of {@link #leaveAtStop}); no parameters. */
	final String dropEndedLeaseExtensions;

	/**
	 * Notes that the instance stopped while the job's handler still ran, after
	 * {@link #dropLeaseExtension}: the lease's end is then no crash. It extends nothing (it
	 * expires as written), and is deleted when the job is reaped; parameters: id, token.
	 */
	final String leaveAtStop;

	final String reap;

	final String passedDeadlines;

	/** {@link #passedDeadlines}, locked, passing over rows another transaction holds. */
	final String lockPassedDeadlines;

	final String expire;

	final String requestCancel;

	final String markAwaited;

	final String find;

	/** One row when the job exists; parameters: id. */
	final String exists;

	final String cancel;

	final String retryFailed;

	final String failedJobs;

	final String dueBacklog;

	final String claimIfUnchanged;

	/** Claims one queued job by id, due or not (the test kit's "run this job now"); parameters: owner, token, lease millis, id. */
	final String claimById;

	/** Jobs of a handler in a state, oldest first; parameters: handler, status, limit. */
	final String findByHandler;

	// Per count of handlers: handler IN (?, …).
	private final Map<Integer, String> makeDue = new ConcurrentHashMap<>();

	// Per count of leases: id IN (?, …).
	private final Map<Integer, String> finishedUnder = new ConcurrentHashMap<>();

	private final Map<Integer, String> findAll = new ConcurrentHashMap<>();

	private final Map<Integer, String> cancelRequested = new ConcurrentHashMap<>();

	private final Map<Integer, String> finishedAmong = new ConcurrentHashMap<>();

	private final Map<Integer, String> plainQueuedAmong = new ConcurrentHashMap<>();

	private final Map<Integer, String> cancelPlainAmong = new ConcurrentHashMap<>();

	/** {@link Dialect#writeLockFirst} of the jobs' table, or {@code null} where reads lock rows. */
	final @Nullable String writeLockFirst;

	private final Map<Integer, String> deleteFinishedAmong = new ConcurrentHashMap<>();

	private final Map<Integer, String> awaitedAmong = new ConcurrentHashMap<>();

	private final Map<Integer, String> lockRunning = new ConcurrentHashMap<>();

	private final Map<Integer, String> running = new ConcurrentHashMap<>();

	private final Map<Integer, String> lockPlainRunning = new ConcurrentHashMap<>();

	private final Map<Integer, Optional<String>> completeLocked = new ConcurrentHashMap<>();

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

	private final Map<String, String> plain = new ConcurrentHashMap<>();

	final String countsByQueue;

	/** The oldest jobs of a finished state past an age, with their finished_at; parameters: status, -age, limit. */
	final String finishedBefore;

	/** {@link #finishedBefore}, passing over rows another transaction holds (where the database can). */
	final String lockFinishedBefore;

	/**
	 * {@link #finishedBefore}, from a finished_at on, where the pruner's last batch ended;
	 * parameters: status, from, -age, limit.
	 */
	final String finishedFrom;

	/** {@link #finishedFrom}, passing over rows another transaction holds (where the database can). */
	final String lockFinishedFrom;

	final String deleteFinished;

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
		this.complete = """
				UPDATE %s SET status = 'SUCCEEDED', result = %s, last_error = COALESCE(?, last_error),
				    finished_at = %s, updated_at = %s, lease_expires_at = NULL, version = version + 1
				WHERE id = ? AND lease_token = ? AND status = 'RUNNING'""".formatted(this.table, json, now, now);
		this.completeAll = dialect.completeAll(this.table, null);
		this.completeAllRecording = dialect.completeAll(this.table, new AttemptSql(dialect, schema)::recordCompletedFrom);
		this.insertAll = dialect.insertAll(this.table);
		this.insertAllBare = dialect.insertAllBare(this.table);
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		String leaseExtensions = prefix + "queue_lease_extension";
		this.completeWhileLeased = this.complete + " AND " + leaseHolds(leaseExtensions, dialect.currentTime());
		// Every table the queue writes often: claims and completions (queue_job), limited and fair
		// claims (queue_flow, queue_rate_window, queue_fair_key), workflows' settling (queue_dependency, queue_batch) and
		// schedules' fires (queue_schedule), instances' beats (queue_instance), attempts' history
		// (queue_attempt, deleted by the pruner), the shared counts (queue_count, queue_count_turn:
		// rewritten every stats interval). Without vacuum each keeps its dead rows and never gets statistics.
		List<String> vacuumed = List.of(this.table, prefix + "queue_flow", prefix + "queue_rate_window",
				prefix + "queue_fair_key",
				prefix + "queue_dependency", prefix + "queue_batch", prefix + "queue_schedule",
				prefix + "queue_instance", prefix + "queue_attempt", prefix + "queue_job_step", prefix + "queue_job_signal", prefix + "queue_count",
				prefix + "queue_count_turn", leaseExtensions);
		this.vacuum = dialect.vacuumStatement(vacuumed);
		this.horizon = (this.vacuum != null) ? dialect.horizonQuery() : null;
		this.vacuumEach = (this.vacuum != null)
				? vacuumed.stream().map((table) -> dialect.vacuumStatement(List.of(table))).toList() : List.of();
		this.tableName = this.table;
		this.lastJobId = "SELECT MAX(id) FROM %s".formatted(this.table);
		this.fairKeysSince = """
				SELECT t.concurrency_key, MAX(t.id) AS last_id,
				       MAX(CASE WHEN t.queue = ? AND t.status = 'QUEUED' THEN 1 ELSE 0 END) AS queued
				FROM (SELECT concurrency_key, queue, status, id FROM %s WHERE id > ? ORDER BY id LIMIT %d) t
				GROUP BY t.concurrency_key""".formatted(this.table, KEYS_SINCE_ROWS);
		this.writeLockFirst = dialect.writeLockFirst(this.table);
		// A job whose cancel was asked for while it ran is never queued again (reschedule,
		// release): it ends CANCELLED, even if its instance had not heard of the request yet.
		this.reschedule = """
				UPDATE %s SET status = CASE WHEN cancel_requested_at IS NULL THEN 'QUEUED' ELSE 'CANCELLED' END,
				    finished_at = CASE WHEN cancel_requested_at IS NULL THEN NULL ELSE %s END,
				    run_at = %s, last_error = ?, updated_at = %s, lease_expires_at = NULL, version = version + 1
				WHERE id = ? AND lease_token = ? AND status = 'RUNNING'""".formatted(this.table, now, nowPlus, now);
		// A park is no attempt: the next claim counts the same attempt again. The job started
		// before its deadline, which so no longer applies. A job whose cancel was asked for is
		// left for the worker to end CANCELLED, so that it can say so.
		String park = """
				UPDATE %s SET status = 'QUEUED', run_at = %s, attempts = attempts - 1, deadline = NULL, updated_at = %s,
				    lease_expires_at = NULL, version = version + 1
				WHERE id = ? AND lease_token = ? AND status = 'RUNNING' AND cancel_requested_at IS NULL""";
		// A record that is not there (never committed, or deleted) makes the job due at once, so
		// that its next run records again: never a NULL run_at that fails the park and leaves the
		// job RUNNING for the reaper, which would count a crash.
		this.parkOnRecord = park.formatted(this.table,
				"COALESCE((SELECT wake_at FROM %squeue_job_step WHERE job_id = ? AND kind = ? AND name = ?), %s)"
					.formatted(prefix, now),
				now);
		this.parkFor = park.formatted(this.table, nowPlus, now);
		this.finish = """
				UPDATE %s SET status = ?, last_error = ?, finished_at = %s, updated_at = %s,
				    lease_expires_at = NULL, version = version + 1
				WHERE id = ? AND lease_token = ? AND status = 'RUNNING'""".formatted(this.table, now, now);
		String giveBack = """
				UPDATE %s SET status = CASE WHEN cancel_requested_at IS NULL THEN 'QUEUED' ELSE 'CANCELLED' END,
				    finished_at = CASE WHEN cancel_requested_at IS NULL THEN NULL ELSE %s END,
				    attempts = attempts - 1, started_at = NULL,%s updated_at = %s,
				    lease_token = NULL, lease_expires_at = NULL, version = version + 1
				WHERE id = ? AND lease_token = ? AND status = 'RUNNING'""";
		this.release = giveBack.formatted(this.table, now, "", now);
		this.stopped = giveBack.formatted(this.table, now, " last_error = ?,", now);
		this.extendLease = """
				UPDATE %s SET lease_expires_at = %s
				WHERE id = ? AND lease_token = ? AND status = 'RUNNING'""".formatted(this.table, nowPlus);
		this.extendLeases = dialect.extendLeases(this.table);
		this.expiredLeases = """
				SELECT id, queue, handler, lease_owner, lease_token, attempts, max_attempts, crashes,
				    cancel_requested_at,
				    EXISTS (SELECT 1 FROM %s g WHERE g.job_id = id AND g.token = lease_token AND g.stopped = TRUE) AS stopped
				FROM %s
				WHERE status = 'RUNNING' AND %s
				ORDER BY lease_expires_at
				LIMIT ?""".formatted(leaseExtensions, this.table, leaseEnded(leaseExtensions, now));
		this.lockExpiredLeases = this.expiredLeases + "\nFOR UPDATE SKIP LOCKED";
		// The status (QUEUED again, or FAILED or CANCELLED for good) and whether a crash is counted
		// (not after the instance said goodbye) are decided by the reaper from the row it read,
		// fenced by that row's token.
		this.reap = """
				UPDATE %s SET status = ?, finished_at = CASE WHEN ? = 'QUEUED' THEN NULL ELSE %s END,
				    run_at = %s, last_error = ?, updated_at = %s,
				    lease_token = NULL, lease_expires_at = NULL, crashes = crashes + ?, version = version + 1
				WHERE id = ? AND lease_token = ? AND status = 'RUNNING' AND %s"""
			.formatted(this.table, now, now, now, leaseEnded(leaseExtensions, now));
		this.extendLeaseBeside = "INSERT INTO %s (job_id, token, expires_at) VALUES (?, ?, %s)"
			.formatted(leaseExtensions, nowPlus);
		this.dropLeaseExtension = "DELETE FROM %s WHERE job_id = ? AND token = ?".formatted(leaseExtensions);
		this.dropEndedLeaseExtensions = "DELETE FROM %s WHERE expires_at < %s AND stopped = FALSE"
			.formatted(leaseExtensions, now);
		this.leaveAtStop = "INSERT INTO %s (job_id, token, expires_at, stopped) VALUES (?, ?, %s, TRUE)"
			.formatted(leaseExtensions, now);
		this.passedDeadlines = """
				SELECT id, queue, handler, deadline FROM %s
				WHERE %s
				LIMIT ?""".formatted(this.table, dialect.deadlinePassed());
		this.lockPassedDeadlines = this.passedDeadlines + "\nFOR UPDATE SKIP LOCKED";
		this.expire = """
				UPDATE %s SET status = 'CANCELLED', last_error = ?, finished_at = %s, updated_at = %s,
				    version = version + 1
				WHERE id = ? AND status = 'QUEUED' AND deadline <= %s""".formatted(this.table, now, now, now);
		this.markAwaited = """
				UPDATE %s SET awaited = 1
				WHERE id = ? AND status IN ('WAITING', 'QUEUED', 'RUNNING') AND awaited = 0""".formatted(this.table);
		this.requestCancel = """
				UPDATE %s SET cancel_requested_at = COALESCE(cancel_requested_at, %s), updated_at = %s
				WHERE id = ? AND status = 'RUNNING'""".formatted(this.table, now, now);
		this.find = "SELECT * FROM %s WHERE id = ?".formatted(this.table);
		this.exists = "SELECT 1 FROM %s WHERE id = ?".formatted(this.table);
		this.cancel = """
				UPDATE %s SET status = 'CANCELLED', finished_at = %s, updated_at = %s, version = version + 1
				WHERE id = ? AND status IN ('QUEUED', 'WAITING')""".formatted(this.table, now, now);
		this.retryFailed = """
				UPDATE %s SET status = 'QUEUED', attempts = 0, crashes = 0, cancel_requested_at = NULL, run_at = %s,
				    finished_at = NULL, updated_at = %s, version = version + 1
				WHERE id = ? AND status = 'FAILED'""".formatted(this.table, now, now);
		this.failedJobs = """
				SELECT j.id FROM %s j
				WHERE j.status = 'FAILED' AND j.queue = COALESCE(?, j.queue) AND j.handler = COALESCE(?, j.handler)
				  AND (j.unique_key IS NULL OR NOT EXISTS (
				      SELECT 1 FROM %s u
				      WHERE u.unique_key = j.unique_key AND u.status IN ('WAITING', 'QUEUED', 'RUNNING')))
				ORDER BY j.id
				LIMIT ?""".formatted(this.table, this.table);
		this.dueBacklog = """
				SELECT queue, handler, COUNT(*) AS due_jobs, MIN(run_at) AS oldest_run_at, %s AS db_now FROM %s
				WHERE status = 'QUEUED' AND run_at <= %s
				GROUP BY queue, handler""".formatted(now, this.table, now);
		this.countsByQueue = """
				SELECT queue, status, COUNT(*) AS jobs,
				    MIN(CASE WHEN status = 'QUEUED' AND run_at <= %s THEN run_at END) AS oldest_due, %s AS db_now
				FROM %s
				GROUP BY queue, status""".formatted(now, now, this.table);
		this.finishedBefore = """
				SELECT id, finished_at FROM %s
				WHERE status = ? AND finished_at < %s
				ORDER BY finished_at
				LIMIT ?""".formatted(this.table, dialect.nowPlusMillis());
		this.lockFinishedBefore = this.finishedBefore + "\nFOR UPDATE SKIP LOCKED";
		this.finishedFrom = """
				SELECT id, finished_at FROM %s
				WHERE status = ? AND finished_at >= ? AND finished_at < %s
				ORDER BY finished_at
				LIMIT ?""".formatted(this.table, dialect.nowPlusMillis());
		this.lockFinishedFrom = this.finishedFrom + "\nFOR UPDATE SKIP LOCKED";
		this.deleteFinished = """
				DELETE FROM %s WHERE id = ? AND status = ?""".formatted(this.table);
		this.claimIfUnchanged = """
				UPDATE %s SET %s
				WHERE id = ? AND status = 'QUEUED' AND version = ?""".formatted(this.table, claimedColumns());
		this.claimById = """
				UPDATE %s SET %s
				WHERE id = ? AND status = 'QUEUED'""".formatted(this.table, claimedColumns());
		this.findByHandler = """
				SELECT * FROM %s WHERE handler = ? AND status = ?
				ORDER BY id
				LIMIT ?""".formatted(this.table);
	}

	/**
	 * A write of a job's end that leaves alone jobs whose end settles others (dependents, a
	 * batch): for those, {@link JobStore} makes the write and the settling in one transaction.
	 * The statement must end with its {@code WHERE} conditions.
	 */
	String plain(String statement) {
		return this.plain.computeIfAbsent(statement, (text) -> text + " AND settles = 0");
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
		return this.plain.computeIfAbsent("fairPriority:" + handlers + ":" + below, (key) -> """
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
		return this.plain.computeIfAbsent("fairDueAbove:" + handlers, (key) -> """
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
		return this.plain.computeIfAbsent("fairKeys", (key) -> """
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
		return this.plain.computeIfAbsent("fairHeads:" + handlers + ":" + keyed + ":" + withoutKey, (key) -> {
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

	/** The jobs of these ids that no longer run, with the token of their last attempt; parameters: ids…. */
	String finishedUnder(int ids) {
		return this.finishedUnder.computeIfAbsent(ids,
				(count) -> "SELECT id, lease_token FROM %s WHERE id IN (%s) AND status <> 'RUNNING'"
					.formatted(this.table, placeholders(count)));
	}

	/** The jobs of these ids; parameters: ids…. */
	String findAll(int ids) {
		return this.findAll.computeIfAbsent(ids,
				(count) -> "SELECT * FROM %s WHERE id IN (%s)".formatted(this.table, placeholders(count)));
	}

	/**
	 * The finished jobs among these ids, with {@code lock} locked and passing over rows
	 * another transaction holds; parameters: ids….
	 */
	String finishedAmong(int ids, boolean lock) {
		return this.finishedAmong.computeIfAbsent(ids * 2 + (lock ? 1 : 0), (key) -> """
				SELECT id FROM %s WHERE id IN (%s) AND status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')%s"""
			.formatted(this.table, placeholders(ids), lock ? "\nFOR UPDATE SKIP LOCKED" : ""));
	}

	/**
	 * The {@code QUEUED} or {@code WAITING} jobs among these ids whose end settles nothing,
	 * with {@code lock} locked and passing over rows another transaction holds; parameters: ids….
	 */
	String plainQueuedAmong(int ids, boolean lock) {
		return this.plainQueuedAmong.computeIfAbsent(ids * 2 + (lock ? 1 : 0), (key) -> """
				SELECT id, queue, handler FROM %s
				WHERE id IN (%s) AND status IN ('QUEUED', 'WAITING') AND settles = 0%s"""
			.formatted(this.table, placeholders(ids), lock ? "\nFOR UPDATE SKIP LOCKED" : ""));
	}

	/** Cancels the {@code QUEUED} or {@code WAITING} jobs among these ids whose end settles nothing; parameters: ids…. */
	String cancelPlainAmong(int ids) {
		return this.cancelPlainAmong.computeIfAbsent(ids, (count) -> """
				UPDATE %s SET status = 'CANCELLED', finished_at = %s, updated_at = %s, version = version + 1
				WHERE id IN (%s) AND status IN ('QUEUED', 'WAITING') AND settles = 0"""
			.formatted(this.table, this.dialect.now(), this.dialect.now(), placeholders(count)));
	}

	/** Deletes the finished jobs among these ids; parameters: ids…. */
	String deleteFinishedAmong(int ids) {
		return this.deleteFinishedAmong.computeIfAbsent(ids, (count) -> """
				DELETE FROM %s WHERE id IN (%s) AND status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')"""
			.formatted(this.table, placeholders(count)));
	}

	/** The running jobs of these ids whose cancel was asked for; parameters: ids…. */
	String cancelRequested(int ids) {
		return this.cancelRequested.computeIfAbsent(ids, (count) -> """
				SELECT id FROM %s WHERE id IN (%s) AND status = 'RUNNING' AND cancel_requested_at IS NOT NULL"""
			.formatted(this.table, placeholders(count)));
	}

	/**
	 * Of these jobs, the running ones with their tokens, locked, passing over those another
	 * transaction has locked; parameters: ids….
	 */
	String lockRunning(int ids) {
		return this.lockRunning.computeIfAbsent(ids, (count) -> running(count) + "\nFOR UPDATE SKIP LOCKED");
	}

	/**
	 * As {@link #lockRunning}, of the jobs whose end settles nothing else (a completion flush's:
	 * those others are completed with what they settle, in a transaction of their own).
	 */
	String lockPlainRunning(int ids) {
		return this.lockPlainRunning.computeIfAbsent(ids,
				(count) -> running(count) + " AND settles = 0\nFOR UPDATE SKIP LOCKED");
	}

	/**
	 * Completes jobs whose rows the transaction has locked ({@link Dialect#completeLocked}), for
	 * up to {@code rows} jobs (the text is that of the next power of two, padded with null ids),
	 * or {@code null} where the dialect has no such statement.
	 */
	@Nullable String completeLocked(int rows) {
		return this.completeLocked.computeIfAbsent(IdChunks.padded(rows),
				(padded) -> Optional.ofNullable(this.dialect.completeLocked(this.table, padded)))
			.orElse(null);
	}

	/** Of these jobs, the running ones with their tokens, as committed (no lock); parameters: ids…. */
	/**
	 * Whether a running job's lease holds at {@code time}: it ends at the later of the row's
	 * expiry and the expiry the heartbeat wrote beside the row, for the same token, while
	 * another transaction held the row ({@code queue_lease_extension}). The extension's
	 * columns are named apart from the job's ({@code token}, not {@code lease_token}), so that
	 * {@code id} and {@code lease_token} in the subquery are the outer row's, whatever the
	 * table's qualified name.
	 */
	static String leaseHolds(String leaseExtensions, String time) {
		return "(lease_expires_at >= %s OR %s)".formatted(time, extendedBeside(leaseExtensions, time));
	}

	/** The negation of {@link #leaseHolds}, written so that the row's expiry can be read from its index. */
	private static String leaseEnded(String leaseExtensions, String time) {
		return "lease_expires_at < %s AND NOT %s".formatted(time, extendedBeside(leaseExtensions, time));
	}

	private static String extendedBeside(String leaseExtensions, String time) {
		return "EXISTS (SELECT 1 FROM %s x WHERE x.job_id = id AND x.token = lease_token AND x.expires_at >= %s)"
			.formatted(leaseExtensions, time);
	}

	String running(int ids) {
		return this.running.computeIfAbsent(ids, (count) -> "SELECT id, lease_token FROM %s WHERE id IN (%s) AND status = 'RUNNING'"
			.formatted(this.table, placeholders(count)));
	}

	/** Of these jobs, those someone awaits ({@link #markAwaited}); parameters: ids…. */
	String awaitedAmong(int ids) {
		return this.awaitedAmong.computeIfAbsent(ids, (count) -> "SELECT id FROM %s WHERE id IN (%s) AND awaited <> 0"
			.formatted(this.table, placeholders(count)));
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

	private static String placeholders(int count) {
		return String.join(", ", Collections.nCopies(count, "?"));
	}

}
