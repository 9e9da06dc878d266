package io.sqlqueue.internal.store;

import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;

/**
 * Every statement {@link AttemptHistory} runs on {@code queue_attempt}, written once and
 * filled with the dialect's pieces, as {@link JobSql} does for jobs. The row of an ended
 * attempt is copied from its job's row right after the fenced write that ended it, in the
 * same transaction: the attempt's number, worker and start are still on the job's row then
 * (an end keeps them), and its outcome follows from the status that write set.
 */
final class AttemptSql {

	/** The outcome of an attempt from the status its end set. */
	private static final String OUTCOME = """
			CASE status WHEN 'SUCCEEDED' THEN 'succeeded' WHEN 'QUEUED' THEN 'retried' \
			WHEN 'FAILED' THEN 'failed' ELSE 'cancelled' END""";

	private final String table;

	private final String jobTable;

	private final String recordEndedPrefix;

	/** Records the attempt the reaper just ended (its lease expired); parameters: job id. */
	final String recordLeaseExpired;

	/** A job's attempts, oldest first; parameters: job id. */
	final String ofJob;

	private final Map<Integer, String> recordEnded = new ConcurrentHashMap<>();

	private final Map<Integer, String> forget = new ConcurrentHashMap<>();

	AttemptSql(Dialect dialect, @Nullable String schema) {
		String checkedSchema = Names.requireSchema(schema);
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		this.table = prefix + "queue_attempt";
		this.jobTable = prefix + "queue_job";
		this.recordEndedPrefix = record(dialect, OUTCOME, "CASE WHEN status = 'SUCCEEDED' THEN NULL ELSE last_error END");
		this.recordLeaseExpired = record(dialect, "'lease-expired'", "last_error") + "id = ?";
		this.ofJob = """
				SELECT attempt, worker, started_at, ended_at, outcome, status, error FROM %s
				WHERE job_id = ?
				ORDER BY id""".formatted(this.table);
	}

	private String record(Dialect dialect, String outcome, String error) {
		return """
				INSERT INTO %s (job_id, attempt, worker, started_at, ended_at, outcome, status, error)
				SELECT id, attempts, lease_owner, started_at, %s, %s, status, %s FROM %s
				WHERE\s""".formatted(this.table, dialect.now(), outcome, error, this.jobTable);
	}

	/**
	 * Records the attempts that fenced writes of this transaction just ended, one statement
	 * for many jobs (MariaDB cannot batch an {@code INSERT … SELECT}); parameters: the job ids,
	 * padded ({@link IdChunks}).
	 */
	String recordEnded(int ids) {
		return this.recordEnded.computeIfAbsent(ids,
				(count) -> this.recordEndedPrefix + "id IN (" + placeholders(count) + ")");
	}

	private static String placeholders(int count) {
		return String.join(", ", Collections.nCopies(count, "?"));
	}

	/**
	 * Records the attempts of the jobs that {@code cte} (a data-modifying CTE of the same
	 * statement that returns the completed rows) completed: how a one-statement completion
	 * flush ({@link Dialect#completeAll}) keeps its one round trip.
	 */
	String recordCompletedFrom(String cte) {
		return """
				INSERT INTO %s (job_id, attempt, worker, started_at, ended_at, outcome, status, error)
				SELECT id, attempts, lease_owner, started_at, finished_at, 'succeeded', status, NULL FROM %s"""
			.formatted(this.table, cte);
	}

	/** Deletes the attempts of these jobs; parameters: the job ids, padded ({@link IdChunks}). */
	String forget(int ids) {
		return this.forget.computeIfAbsent(ids, (count) -> "DELETE FROM %s WHERE job_id IN (%s)"
			.formatted(this.table, placeholders(count)));
	}

}
