package io.sqlqueue.internal.store;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;

import static io.sqlqueue.internal.store.IdChunks.placeholders;

/**
 * The statements that end a job's attempt or the job ({@link JobCompletions},
 * {@link JobEnds}, {@link OperatorWrites}): success, a retry's reschedule, a park, failure
 * for good, a release or a give-back, the reaper's and the deadline sweep's ends, cancels
 * (one, asked for while running, or many at once that settle nothing), the retry of a failed
 * job, and who awaits a job's end.
 * <p>
 * Every write after a claim is fenced: {@code WHERE id = ? AND lease_token = ? AND
 * status = 'RUNNING'}. The writes that end an attempt (complete, reschedule, fail) keep its
 * token on the row, so that an attempt whose write committed but whose answer was lost can
 * tell "recorded by me" from "handed to someone else" ({@link JobReadSql#finishedUnder});
 * only a new claim, the reaper and a release change or clear it.
 */
final class JobEndSql {

	private final Dialect dialect;

	private final String table;

	final String complete;

	final String completeWhileLeased;

	final @Nullable String completeAll;

	/** As {@link #completeAll}, recording the attempts it completes ({@link AttemptHistory}). */
	final @Nullable String completeAllRecording;

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

	final String reap;

	final String passedDeadlines;

	/** {@link #passedDeadlines}, locked, passing over rows another transaction holds. */
	final String lockPassedDeadlines;

	final String expire;

	final String cancel;

	final String requestCancel;

	final String markAwaited;

	final String retryFailed;

	final String failedJobs;

	private final Map<Integer, Optional<String>> completeLocked = new ConcurrentHashMap<>();

	private final Map<Integer, String> awaitedAmong = new ConcurrentHashMap<>();

	private final Map<Integer, String> plainQueuedAmong = new ConcurrentHashMap<>();

	private final Map<Integer, String> cancelPlainAmong = new ConcurrentHashMap<>();

	private final Map<String, String> plain = new ConcurrentHashMap<>();

	JobEndSql(Dialect dialect, @Nullable String schema) {
		this.dialect = dialect;
		String checkedSchema = Names.requireSchema(schema);
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		this.table = prefix + "queue_job";
		String leaseExtensions = LeaseSql.leaseExtensions(dialect, schema);
		String now = dialect.now();
		String nowPlus = dialect.nowPlusMillis();
		this.complete = """
				UPDATE %s SET status = 'SUCCEEDED', result = %s, last_error = COALESCE(?, last_error),
				    finished_at = %s, updated_at = %s, lease_expires_at = NULL, version = version + 1
				WHERE id = ? AND lease_token = ? AND status = 'RUNNING'""".formatted(this.table,
				dialect.jsonParameter(), now, now);
		this.completeAll = dialect.completeAll(this.table, null);
		this.completeAllRecording = dialect.completeAll(this.table, new AttemptSql(dialect, schema)::recordCompletedFrom);
		this.completeWhileLeased = this.complete + " AND "
				+ LeaseSql.leaseHolds(leaseExtensions, dialect.currentTime());
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
		// The status (QUEUED again, or FAILED or CANCELLED for good) and whether a crash is counted
		// (not after the instance said goodbye) are decided by the reaper from the row it read,
		// fenced by that row's token.
		this.reap = """
				UPDATE %s SET status = ?, finished_at = CASE WHEN ? = 'QUEUED' THEN NULL ELSE %s END,
				    run_at = %s, last_error = ?, updated_at = %s,
				    lease_token = NULL, lease_expires_at = NULL, crashes = crashes + ?, version = version + 1
				WHERE id = ? AND lease_token = ? AND status = 'RUNNING' AND %s"""
			.formatted(this.table, now, now, now, LeaseSql.leaseEnded(leaseExtensions, now));
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
	}

	/**
	 * A write of a job's end that leaves alone jobs whose end settles others (dependents, a
	 * batch): for those, the store makes the write and the settling in one transaction.
	 * The statement must end with its {@code WHERE} conditions.
	 */
	String plain(String statement) {
		return this.plain.computeIfAbsent(statement, (text) -> text + " AND settles = 0");
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

	/** Of these jobs, those someone awaits ({@link #markAwaited}); parameters: ids…. */
	String awaitedAmong(int ids) {
		return this.awaitedAmong.computeIfAbsent(ids, (count) -> "SELECT id FROM %s WHERE id IN (%s) AND awaited <> 0"
			.formatted(this.table, placeholders(count)));
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

}
