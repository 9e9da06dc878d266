package io.sqlqueue.internal.store.postgresql;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcOperations;

import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.QueueCounter;
import io.sqlqueue.internal.store.ReplicaLagReader;
import io.sqlqueue.internal.store.TableHealthReader;

/**
 * PostgreSQL 12+: {@code jsonb} payloads, a one-statement claim whose candidates sit in a
 * {@code MATERIALIZED} CTE. A plain {@code WHERE id IN (SELECT … LIMIT ? FOR UPDATE SKIP LOCKED)}
 * may be re-evaluated by the planner and claim more rows than the limit; the materialized
 * CTE is evaluated exactly once.
 */
public final class PostgresDialect extends Dialect {

	@Override
	public String name() {
		return "postgresql";
	}

	@Override
	public String now() {
		return "now()";
	}

	/** {@code now()} is the transaction's start; a transactional handler's completion needs the time now. */
	@Override
	public String currentTime() {
		return "clock_timestamp()";
	}

	@Override
	public String nowPlusMillis() {
		return "(now() + CAST(? AS double precision) * interval '1 millisecond')";
	}

	@Override
	public String timestampParameter() {
		return "CAST(? AS timestamptz)";
	}

	/** {@code #>>} on jsonb: the field as text, a string without its quotes. */
	@Override
	public String jsonFieldText(String column) {
		return "(" + column + " #>> CAST(? AS text[]))";
	}

	/** A text array literal: the keys hold no braces, commas, quotes or blanks. */
	@Override
	public String payloadPath(List<String> keys) {
		return "{" + String.join(",", keys) + "}";
	}

	@Override
	public String jsonParameter() {
		return "CAST(? AS jsonb)";
	}

	@Override
	public String insertIgnoringDuplicates() {
		// A unique violation would abort the caller's whole transaction on PostgreSQL.
		return " ON CONFLICT DO NOTHING";
	}

	/**
	 * One statement for the whole batch: the jobs' columns as arrays, unnested in job order, so
	 * that the identity gives them ascending ids in that order.
	 */
	@Override
	public String insertAll(String table) {
		return """
				INSERT INTO %s (queue, handler, payload, status, priority, run_at, max_attempts, unique_key, group_key,
				                scheduled_for, deadline, created_at, updated_at, headers, concurrency_key)
				SELECT d.queue, d.handler, CAST(d.payload AS jsonb), 'QUEUED', d.priority,
				       COALESCE(CAST(d.run_at AS timestamptz),
				                now() + CAST(d.delay_millis AS double precision) * interval '1 millisecond'),
				       d.max_attempts, d.unique_key, d.group_key, CAST(d.scheduled_for AS timestamptz),
				       COALESCE(CAST(d.deadline AS timestamptz),
				                now() + CAST(d.expire_millis AS double precision) * interval '1 millisecond'),
				       now(), now(), CAST(d.headers AS jsonb), d.concurrency_key
				FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS int[]), CAST(? AS text[]),
				            CAST(? AS bigint[]), CAST(? AS int[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]),
				            CAST(? AS text[]), CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS text[])) WITH ORDINALITY
				    AS d(queue, handler, payload, priority, run_at, delay_millis, max_attempts, unique_key, group_key,
				         scheduled_for, deadline, expire_millis, headers, concurrency_key, n)
				ORDER BY d.n
				ON CONFLICT DO NOTHING
				RETURNING id""".formatted(table);
	}

	/**
	 * {@link #insertAll} for jobs that are all bare ({@code NewJob.bare()}): five arrays
	 * instead of fourteen, and no {@code ON CONFLICT}, as no bare job has a unique key. On
	 * 500-row batches it takes about a quarter less of the database's time than
	 * {@link #insertAll} with nine arrays of nulls and its speculative inserts
	 * (docs/performance.md, A).
	 */
	@Override
	public String insertAllBare(String table) {
		return """
				INSERT INTO %s (queue, handler, payload, status, priority, run_at, max_attempts, created_at, updated_at)
				SELECT d.queue, d.handler, CAST(d.payload AS jsonb), 'QUEUED', d.priority, now(), d.max_attempts,
				       now(), now()
				FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS int[]),
				            CAST(? AS int[])) WITH ORDINALITY AS d(queue, handler, payload, priority, max_attempts, n)
				ORDER BY d.n
				RETURNING id""".formatted(table);
	}

	/**
	 * One statement instead of one per job: PostgreSQL plans and runs it once for the whole
	 * batch. Each row finds its token, result and note by its id's position in the arrays, so
	 * the plan has no join: joined to {@code unnest(…)}, the planner, which sees few running
	 * jobs in statistics taken while the queue was idle, picked a nested loop that read the
	 * whole batch again for every running job, and a batch of 100 cost 8–12 ms instead of 2.
	 * The status is tested as {@code (…) IS TRUE} (the same, as status is never null) so that
	 * the running jobs' partial index cannot serve the statement: on the same statistics the
	 * planner read it whole for every flush, dead entries of every job ever run included
	 * (346 million index entries for a drain of 200,000 jobs), instead of the primary key.
	 * Jobs whose end settles others ({@code settles <> 0}: dependents, a batch) are left
	 * alone, for {@link io.sqlqueue.internal.store.JobStore} to complete with what they settle. The rows are locked
	 * first in a {@code MATERIALIZED} CTE with {@code SKIP LOCKED}, as the heartbeat's
	 * ({@link #extendLeases}): a row another transaction holds (a caller's open transaction
	 * that enqueued a job to run after it, or cancels it) is passed over, to be written by a
	 * later flush, instead of holding up every completion of this one until that transaction
	 * ends ({@code lock_timeout} is 0: for ever).
	 */
	@Override
	public String completeAll(String table, @Nullable UnaryOperator<String> recordAttempts) {
		String update = """
				UPDATE %1$s j SET status = 'SUCCEEDED', result = CAST(d.results[array_position(d.ids, j.id)] AS jsonb),
				    last_error = COALESCE(d.notes[array_position(d.ids, j.id)], j.last_error), finished_at = now(),
				    updated_at = now(), lease_expires_at = NULL, version = j.version + 1
				FROM picked, d
				WHERE j.id = picked.id""".formatted(table);
		String picked = """
				WITH d AS (SELECT CAST(? AS bigint[]) AS ids, CAST(? AS bigint[]) AS tokens, CAST(? AS text[]) AS results,
				                  CAST(? AS text[]) AS notes),
				picked AS MATERIALIZED (
				    SELECT j.id FROM %1$s j, d
				    WHERE j.id = ANY(d.ids) AND j.lease_token = d.tokens[array_position(d.ids, j.id)]
				      AND (j.status = 'RUNNING') IS TRUE AND j.settles = 0
				    FOR UPDATE OF j SKIP LOCKED)""".formatted(table);
		if (recordAttempts == null) {
			return picked + "\n" + update + "\nRETURNING j.id, j.awaited";
		}
		// The attempts' rows ride in the same statement, so the flush stays one round trip and
		// records exactly the jobs its fenced update completed.
		return picked + ",\ndone AS (\n" + update.indent(4)
				+ "    RETURNING j.id, j.awaited, j.attempts, j.lease_owner, j.started_at, j.finished_at, j.status),\n"
				+ "recorded AS (\n" + recordAttempts.apply("done").indent(4) + ")\nSELECT id, awaited FROM done";
	}

	/** {@code lock_not_available}: {@code lock_timeout} passed. */
	@Override
	protected boolean isLockWaitTimeout(SQLException ex) {
		return "55P03".equals(ex.getSQLState());
	}

	/** {@code lock_timeout} for the rest of the transaction: it ends with the transaction. */
	@Override
	public @Nullable Runnable boundLockWaits(JdbcOperations jdbc, Duration bound) {
		jdbc.execute("SET LOCAL lock_timeout = '" + bound.toMillis() + "ms'");
		return null;
	}

	/**
	 * The rows are locked in a {@code MATERIALIZED} CTE with {@code SKIP LOCKED}, so the
	 * heartbeat never waits behind a transaction that holds a job's row (a caller's open
	 * transaction that enqueued a job to run after it, a completion). Each row finds its token
	 * by its id's position in the arrays, and the status is tested as {@code (…) IS TRUE}, so
	 * that the primary key serves it, as in {@link #completeAll}.
	 */
	@Override
	public String extendLeases(String table) {
		return """
				WITH picked AS MATERIALIZED (
				    SELECT j.id FROM %1$s j, (SELECT CAST(? AS bigint[]) AS ids, CAST(? AS bigint[]) AS tokens) d
				    WHERE j.id = ANY(d.ids) AND j.lease_token = d.tokens[array_position(d.ids, j.id)]
				      AND (j.status = 'RUNNING') IS TRUE
				    FOR UPDATE OF j SKIP LOCKED)
				UPDATE %1$s j SET lease_expires_at = now() + CAST(? AS double precision) * interval '1 millisecond'
				FROM picked WHERE j.id = picked.id
				RETURNING j.id""".formatted(table);
	}

	/**
	 * The rows are locked in a {@code MATERIALIZED} CTE with {@code SKIP LOCKED}, by the
	 * primary key, as in {@link #extendLeases}: the status is tested as {@code (…) IS TRUE} so
	 * that the ready jobs' partial index cannot serve it (see {@code JobSql.claimQueued}).
	 */
	@Override
	public String claimQueuedPassingOverLocked(String table, String ids, String claimedColumns) {
		return """
				WITH locked AS MATERIALIZED (
				    SELECT j.id FROM %1$s j
				    WHERE j.id IN (%2$s) AND (j.status = 'QUEUED') IS TRUE
				    FOR UPDATE OF j SKIP LOCKED)
				UPDATE %1$s j SET %3$s
				FROM locked WHERE j.id = locked.id
				RETURNING j.id""".formatted(table, ids, claimedColumns);
	}

	@Override
	public String upsertRateWindows(String windowTable) {
		return """
				INSERT INTO %s (concurrency_key, window_start, window_starts, previous_starts, expires_at, queue)
				SELECT d.concurrency_key, d.window_start, d.window_starts, d.previous_starts, d.expires_at, CAST(? AS text)
				FROM unnest(CAST(? AS text[]), CAST(? AS bigint[]), CAST(? AS int[]), CAST(? AS int[]), CAST(? AS bigint[]))
				    AS d(concurrency_key, window_start, window_starts, previous_starts, expires_at)
				ON CONFLICT (queue, concurrency_key) DO UPDATE SET window_start = excluded.window_start,
				    window_starts = excluded.window_starts, previous_starts = excluded.previous_starts,
				    expires_at = excluded.expires_at""".formatted(windowTable);
	}

	/** Autovacuum switched off for the server, or for the table by a storage parameter. */
	@Override
	public String unvacuumedQuery() {
		return """
				SELECT current_setting('autovacuum') = 'off'
				    OR EXISTS (SELECT 1 FROM pg_class WHERE oid = CAST(? AS regclass)
				               AND reloptions @> ARRAY['autovacuum_enabled=false'])""";
	}

	/**
	 * After five runs of one prepared statement PostgreSQL may switch to a generic plan, made
	 * for any value: for {@code queue = $1} it then reads the primary key backwards and
	 * filters (fine for a big queue, the whole table for one without jobs), and it can never
	 * use a partial index such as the ready or the running jobs'.
	 */
	@Override
	public String customPlansStatement() {
		return "SET LOCAL plan_cache_mode = force_custom_plan";
	}

	/**
	 * The claim of a limited queue commits without waiting for the disk, as the one-statement
	 * claim does, and reports its isolation: it runs at the connection's own (READ COMMITTED,
	 * PostgreSQL's default), since pgjdbc asks the server for the isolation every time a
	 * transaction names one. Its statements find rows by index scans only (for this
	 * transaction): each is written for an index, but a queue's statistics swing between idle
	 * and a backlog, and on statistics taken while it was idle the planner read the whole
	 * table to claim a hundred jobs by id, and counted the running jobs with a bitmap scan that
	 * visits every dead entry of the running jobs' index since the last vacuum, where an index
	 * scan marks those it finds dead and skips them the next time.
	 */
	@Override
	protected String flowLockReadings() {
		return """
				set_config('synchronous_commit', 'off', true) AS no_wait,
				    set_config('enable_seqscan', 'off', true) AS index_only, set_config('enable_bitmapscan', 'off', true) AS no_bitmaps,
				    current_setting('transaction_isolation') = 'read committed' AS read_committed""";
	}

	@Override
	public boolean checksIsolationInFlowLock() {
		return true;
	}

	/**
	 * {@code SKIP_LOCKED}: a table whose lock {@code VACUUM} cannot take at once (a caller's
	 * DDL or {@code LOCK TABLE}, a running migration, another instance's vacuum) is passed
	 * over until the next pass, instead of holding the pass, and its scheduler thread, for as
	 * long as that lock is held.
	 */
	@Override
	public String vacuumStatement(List<String> tables) {
		return "VACUUM (ANALYZE, SKIP_LOCKED) " + String.join(", ", tables);
	}

	/** The oldest of the holders table health reports ({@link PostgresTableHealth#OLDEST_HOLDER}). */
	@Override
	public String horizonQuery() {
		return PostgresTableHealth.OLDEST_HOLDER;
	}

	@Override
	public ReplicaLagReader replicaLagReader(JdbcOperations jdbc) {
		return new PostgresReplicaLag(jdbc);
	}

	@Override
	public TableHealthReader tableHealthReader(JdbcOperations jdbc, @Nullable String schema) {
		return new PostgresTableHealth(jdbc, schema);
	}

	@Override
	public QueueCounter queueCounter(JdbcOperations jdbc, String table, QueueCounter exact) {
		return new PostgresQueueCounter(jdbc, table, exact);
	}

	@Override
	public String notifyStatement() {
		return "SELECT pg_notify(?, ?)";
	}

	@Override
	public ClaimMethod claimMethod() {
		return ClaimMethod.UPDATE_RETURNING;
	}

	/**
	 * The claim commits without waiting for its WAL to reach disk ({@code synchronous_commit}
	 * off for its own transaction only, set by {@code no_wait}): claims are half of a queue's
	 * commits, and waiting for the disk was most of their time. Safe under the queue's
	 * promises: a claim lost with a crash of the database server (up to three times
	 * {@code wal_writer_delay}) leaves its job {@code QUEUED}, to be claimed again, while the
	 * worker that ran it finds its lease lost at completion: at-least-once, as after any lost
	 * lease. Completions still wait for the disk, so a finished job stays finished. So with a
	 * synchronous standby: a claim is the one write that may be lost with a failed-over
	 * primary; the worker does not start a job claimed before it found the database away
	 * until its lease is confirmed (docs/high-availability.md).
	 */
	@Override
	public String claimReturning(String table, String readyJobs, String claimedColumns) {
		return """
				WITH no_wait AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true)),
				picked AS MATERIALIZED (
				    SELECT j.id FROM %1$s j
				    WHERE %2$s
				    ORDER BY j.priority DESC, j.run_at, j.id
				    LIMIT ?
				    FOR UPDATE SKIP LOCKED)
				UPDATE %1$s j SET %3$s
				FROM picked, no_wait WHERE j.id = picked.id
				RETURNING j.*""".formatted(table, readyJobs, claimedColumns);
	}

	/**
	 * The claim past a mark, for a backlog drained while a long transaction holds the horizon
	 * (docs/guarantees.md): then the entries of every job claimed since in the ready jobs'
	 * index stay, dead but not removable, and a claim from the head walks them all, checking
	 * each against the table. Each branch starts its index scan where its jobs begin, the
	 * mark's priority right after the mark (a row comparison the index seeks to). PostgreSQL
	 * runs the branches of a {@code UNION ALL} one after the other and stops once the limit is
	 * reached, so a branch locks only the rows it hands on, and a lower branch runs only when
	 * those before it came up short (a locking read never runs in parallel).
	 */
	@Override
	public String claimReturningPast(String table, String readyJobs, String claimedColumns) {
		String branch = """
				SELECT * FROM (
				    SELECT j.id FROM %1$s j
				    WHERE %2$s
				      AND %3$s
				    ORDER BY j.priority DESC, j.run_at, j.id
				    LIMIT ?
				    FOR UPDATE SKIP LOCKED) %4$s""";
		return """
				WITH no_wait AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true)),
				picked AS MATERIALIZED (
				    SELECT c.id FROM (
				%2$s
				        UNION ALL
				%3$s
				        UNION ALL
				%4$s) c
				    LIMIT ?)
				UPDATE %1$s j SET %5$s
				FROM picked, no_wait WHERE j.id = picked.id
				RETURNING j.*""".formatted(table, indent(branch.formatted(table, readyJobs, "j.priority > ?", "higher")),
				indent(branch.formatted(table, readyJobs,
						"j.priority = ? AND (j.run_at, j.id) > (%s, ?)".formatted(timestampParameter()), "past_mark")),
				indent(branch.formatted(table, readyJobs, "j.priority < ?", "lower")), claimedColumns);
	}

	private static String indent(String branch) {
		return branch.indent(8).stripTrailing();
	}

}
