package io.sqlqueue.internal.store;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;

/**
 * Every statement {@link ClusterStore} runs on {@code queue_paused}, {@code queue_instance}
 * and the shared counts ({@code queue_count}, {@code queue_count_turn}), written once and filled with the dialect's pieces, as
 * {@link JobSql} does for jobs.
 */
final class ClusterSql {

	/** The paused queues' names. */
	final String pausedNames;

	/** The paused queues, with when and by whom. */
	final String paused;

	/** Parameters: queue, paused by. */
	final String pause;

	/** Parameters: queue. */
	final String resume;

	/** Whether a job waits in the queue (served by the ready-jobs index); parameters: queue. */
	final String queuedJobIn;

	/** Parameters: host, pid, version, queues, concurrency, busy workers, beat millis, id. */
	final String beat;

	/** Parameters: id, host, pid, version, queues, concurrency, busy workers, beat millis. */
	final String insertInstance;

	/** Parameters: id. */
	final String deleteInstance;

	/** Parameters: minus the retention in milliseconds. */
	final String deleteUnseen;

	/** Every instance row, with the database's clock ({@code db_now}). */
	final String instances;

	/**
	 * Takes the turn to count if it was last taken before the gap and its counts were shared,
	 * or before three gaps whether or not; parameters: taker, minus the gap in ms, minus three
	 * gaps in ms.
	 */
	final String takeCountTurn;

	/** The turn the taker holds; parameters: taker. */
	final String countTurn;

	/** Marks the turn's counts written; parameters: counter, turn, counter. */
	final String endCountTurn;

	/** Every shared count, before the new ones are written. */
	final String deleteCounts;

	/** Parameters: queue, kind, jobs, oldest due in ms, estimated. */
	final String insertCount;

	/**
	 * The shared counts, with who counted them, when, the turn's start (so how long the count
	 * took) and the database's clock: one row with the turn's columns alone when there are no
	 * counts.
	 */
	final String sharedCounts;

	ClusterSql(Dialect dialect, @Nullable String schema) {
		String checkedSchema = Names.requireSchema(schema);
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		String pausedTable = prefix + "queue_paused";
		String instanceTable = prefix + "queue_instance";
		String countTable = prefix + "queue_count";
		String turnTable = prefix + "queue_count_turn";
		String now = dialect.now();
		this.pausedNames = "SELECT queue FROM %s".formatted(pausedTable);
		this.paused = "SELECT queue, paused_at, paused_by FROM %s ORDER BY queue".formatted(pausedTable);
		this.pause = "INSERT INTO %s (queue, paused_at, paused_by) VALUES (?, %s, ?)".formatted(pausedTable, now);
		this.resume = "DELETE FROM %s WHERE queue = ?".formatted(pausedTable);
		this.queuedJobIn = "SELECT id FROM %squeue_job WHERE status = 'QUEUED' AND queue = ? LIMIT 1".formatted(prefix);
		this.beat = """
				UPDATE %s SET host = ?, pid = ?, version = ?, queues = ?, concurrency = ?, busy_workers = ?,
				    beat_millis = ?, last_seen = %s
				WHERE id = ?""".formatted(instanceTable, now);
		this.insertInstance = """
				INSERT INTO %s (id, host, pid, version, queues, concurrency, busy_workers, beat_millis, started_at,
				                last_seen)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, %s, %s)""".formatted(instanceTable, now, now);
		this.deleteInstance = "DELETE FROM %s WHERE id = ?".formatted(instanceTable);
		this.deleteUnseen = "DELETE FROM %s WHERE last_seen < %s".formatted(instanceTable, dialect.nowPlusMillis());
		this.instances = """
				SELECT id, host, pid, version, queues, concurrency, busy_workers, beat_millis, started_at, last_seen,
				       %s AS db_now
				FROM %s ORDER BY started_at, id""".formatted(now, instanceTable);
		this.takeCountTurn = """
				UPDATE %s SET turn = turn + 1, taken_by = ?, taken_at = %s
				WHERE id = 1 AND taken_at < %s AND (counted_at >= taken_at OR taken_at < %s)"""
			.formatted(turnTable, now, dialect.nowPlusMillis(), dialect.nowPlusMillis());
		this.countTurn = "SELECT turn FROM %s WHERE id = 1 AND taken_by = ?".formatted(turnTable);
		this.endCountTurn = """
				UPDATE %s SET counted_by = ?, counted_at = %s
				WHERE id = 1 AND turn = ? AND taken_by = ?""".formatted(turnTable, now);
		this.deleteCounts = "DELETE FROM %s".formatted(countTable);
		this.insertCount = "INSERT INTO %s (queue, kind, jobs, oldest_due_ms, estimated) VALUES (?, ?, ?, ?, ?)"
			.formatted(countTable);
		this.sharedCounts = """
				SELECT t.counted_by, t.counted_at, t.taken_at, %s AS db_now,
				    c.queue, c.kind, c.jobs, c.oldest_due_ms, c.estimated
				FROM %s t LEFT JOIN %s c ON 1 = 1
				WHERE t.id = 1""".formatted(now, turnTable, countTable);
	}

}
