package io.sqlqueue.internal.store;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;

import static io.sqlqueue.internal.store.IdChunks.placeholders;

/**
 * The statements over many rows at once ({@link BulkJobWrites}, {@link TableUpkeep}): the
 * pruner's reads and deletes of finished jobs, a bulk action's delete of finished jobs by id,
 * and the vacuum of the queue's tables where the database needs to be told.
 */
final class JobBulkSql {

	private final String table;

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

	final @Nullable String vacuum;

	/**
	 * {@link #vacuum} one table at a time, for a schema older than the code (one statement
	 * over a list fails whole when a table of it is missing).
	 */
	final List<String> vacuumEach;

	/** The horizon ({@link Dialect#horizonQuery}), where the queue vacuums; else {@code null}. */
	final @Nullable String horizon;

	private final Map<Integer, String> finishedAmong = new ConcurrentHashMap<>();

	private final Map<Integer, String> deleteFinishedAmong = new ConcurrentHashMap<>();

	JobBulkSql(Dialect dialect, @Nullable String schema) {
		String checkedSchema = Names.requireSchema(schema);
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		this.table = prefix + "queue_job";
		// Every table the queue writes often: claims and completions (queue_job), limited and fair
		// claims (queue_flow, queue_rate_window, queue_fair_key), workflows' settling (queue_dependency, queue_batch) and
		// schedules' fires (queue_schedule), instances' beats (queue_instance), attempts' history
		// (queue_attempt, deleted by the pruner), the shared counts (queue_count, queue_count_turn:
		// rewritten every stats interval). Without vacuum each keeps its dead rows and never gets statistics.
		List<String> vacuumed = List.of(this.table, prefix + "queue_flow", prefix + "queue_rate_window",
				prefix + "queue_fair_key",
				prefix + "queue_dependency", prefix + "queue_batch", prefix + "queue_schedule",
				prefix + "queue_instance", prefix + "queue_attempt", prefix + "queue_job_step", prefix + "queue_job_signal", prefix + "queue_count",
				prefix + "queue_count_turn", LeaseSql.leaseExtensions(dialect, schema));
		this.vacuum = dialect.vacuumStatement(vacuumed);
		this.horizon = (this.vacuum != null) ? dialect.horizonQuery() : null;
		this.vacuumEach = (this.vacuum != null)
				? vacuumed.stream().map((table) -> dialect.vacuumStatement(List.of(table))).toList() : List.of();
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

	/** Deletes the finished jobs among these ids; parameters: ids…. */
	String deleteFinishedAmong(int ids) {
		return this.deleteFinishedAmong.computeIfAbsent(ids, (count) -> """
				DELETE FROM %s WHERE id IN (%s) AND status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')"""
			.formatted(this.table, placeholders(count)));
	}

}
