package io.sqlqueue.internal.store;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;

import static io.sqlqueue.internal.store.IdChunks.placeholders;

/**
 * The reads of jobs ({@link JobReads}, and {@link OperatorWrites}' look before a write by
 * id): by id, by ids, by handler and state, whose attempts ended under which token, whose
 * cancel was asked for, and the counts per queue.
 */
final class JobReadSql {

	private final String table;

	final String find;

	/** One row when the job exists; parameters: id. */
	final String exists;

	/** Jobs of a handler in a state, oldest first; parameters: handler, status, limit. */
	final String findByHandler;

	final String dueBacklog;

	final String countsByQueue;

	private final Map<Integer, String> finishedUnder = new ConcurrentHashMap<>();

	private final Map<Integer, String> findAll = new ConcurrentHashMap<>();

	private final Map<Integer, String> cancelRequested = new ConcurrentHashMap<>();

	JobReadSql(Dialect dialect, @Nullable String schema) {
		String checkedSchema = Names.requireSchema(schema);
		this.table = (checkedSchema != null) ? dialect.quote(checkedSchema) + ".queue_job" : "queue_job";
		String now = dialect.now();
		this.find = "SELECT * FROM %s WHERE id = ?".formatted(this.table);
		this.exists = "SELECT 1 FROM %s WHERE id = ?".formatted(this.table);
		this.dueBacklog = """
				SELECT queue, handler, COUNT(*) AS due_jobs, MIN(run_at) AS oldest_run_at, %s AS db_now FROM %s
				WHERE status = 'QUEUED' AND run_at <= %s
				GROUP BY queue, handler""".formatted(now, this.table, now);
		this.countsByQueue = """
				SELECT queue, status, COUNT(*) AS jobs,
				    MIN(CASE WHEN status = 'QUEUED' AND run_at <= %s THEN run_at END) AS oldest_due, %s AS db_now
				FROM %s
				GROUP BY queue, status""".formatted(now, now, this.table);
		this.findByHandler = """
				SELECT * FROM %s WHERE handler = ? AND status = ?
				ORDER BY id
				LIMIT ?""".formatted(this.table);
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

	/** The running jobs of these ids whose cancel was asked for; parameters: ids…. */
	String cancelRequested(int ids) {
		return this.cancelRequested.computeIfAbsent(ids, (count) -> """
				SELECT id FROM %s WHERE id IN (%s) AND status = 'RUNNING' AND cancel_requested_at IS NOT NULL"""
			.formatted(this.table, placeholders(count)));
	}

}
