package io.sqlqueue.internal.store;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;

/**
 * Every statement {@link ScheduleStore} runs on {@code queue_schedule}, written once and
 * filled with the dialect's pieces, as {@link JobSql} does for jobs.
 */
final class ScheduleSql {

	/** Every schedule, by name. */
	final String all;

	/** One schedule; parameters: name. */
	final String find;

	/** Schedules due now, the most overdue first; parameters: limit. */
	final String due;

	/** The database's clock ({@code db_now}). */
	final String now;

	/** Parameters: name, handler, the definition, paused, orphaned, next run. */
	final String insert;

	/** Parameters: handler, the definition, next run (null keeps it), name, version. */
	final String updateDefinition;

	/** Parameters: paused, next run (null keeps it), name, version. */
	final String setPaused;

	/**
	 * Marks the schedule orphaned unless a live instance declares it ({@code declared_until}
	 * ahead); parameters: name, source.
	 */
	final String orphan;

	/**
	 * Keeps a schedule declared by this instance: {@code declared_until} moved to now plus
	 * the lifetime (never back), and no longer orphaned; parameters: lifetime in
	 * milliseconds, name, lifetime in milliseconds.
	 */
	final String declared;

	/** Parameters: name. */
	final String delete;

	/** Parameters: name, version. */
	final String take;

	/** The row, locked, passing over it when another transaction holds it; {@code null} without row locks. */
	final @Nullable String lockUnlessHeld;

	/** {@link #lockUnlessHeld} whatever the version; parameters: name. */
	final @Nullable String lockNameUnlessHeld;

	/** Parameters: next run, last tick (null keeps it), name. */
	final String advance;

	/** {@link #advance} of a tick that enqueued a job; parameters: next run, last tick, job id, name. */
	final String advanceFired;

	ScheduleSql(Dialect dialect, @Nullable String schema) {
		String checkedSchema = Names.requireSchema(schema);
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		String table = prefix + "queue_schedule";
		String jobTable = prefix + "queue_job";
		String now = dialect.now();
		String timestamp = dialect.timestampParameter();
		String select = """
				SELECT s.*, j.status AS last_job_status, %s AS db_now
				FROM %s s LEFT JOIN %s j ON j.id = s.last_job_id""".formatted(now, table, jobTable);
		this.all = select + "\nORDER BY s.name";
		this.find = select + "\nWHERE s.name = ?";
		this.due = select + """

				WHERE s.next_run_at <= %s AND s.paused = FALSE AND s.orphaned = FALSE
				ORDER BY s.next_run_at
				LIMIT ?""".formatted(now);
		this.now = "SELECT " + now + " AS db_now";
		this.insert = """
				INSERT INTO %s (name, handler, queue, priority, max_attempts, expire_after_millis, concurrency_key,
				                payload, cron, zone, every_millis, misfire, overlap, source, paused, orphaned,
				                next_run_at, version, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, %s, ?, ?, ?, ?, ?, ?, ?, ?, %s, 0, %s, %s)""".formatted(table,
				dialect.jsonParameter(), timestamp, now, now);
		this.updateDefinition = """
				UPDATE %s SET handler = ?, queue = ?, priority = ?, max_attempts = ?, expire_after_millis = ?,
				    concurrency_key = ?, payload = %s, cron = ?, zone = ?, every_millis = ?, misfire = ?, overlap = ?,
				    source = ?, orphaned = FALSE, next_run_at = COALESCE(%s, next_run_at), version = version + 1,
				    updated_at = %s
				WHERE name = ? AND version = ?""".formatted(table, dialect.jsonParameter(), timestamp, now);
		this.setPaused = """
				UPDATE %s SET paused = ?, next_run_at = COALESCE(%s, next_run_at), version = version + 1,
				    updated_at = %s
				WHERE name = ? AND version = ?""".formatted(table, timestamp, now);
		this.orphan = """
				UPDATE %s SET orphaned = TRUE, version = version + 1, updated_at = %s
				WHERE name = ? AND source = ? AND orphaned = FALSE AND (declared_until IS NULL OR declared_until < %s)"""
			.formatted(table, now, now);
		// The version first: MariaDB/MySQL assign left to right, each seeing the ones before.
		// It moves only when the schedule comes back from orphaned, so a refresh never costs a
		// firing its compare-and-set.
		String nowPlus = dialect.nowPlusMillis();
		this.declared = """
				UPDATE %s SET version = version + CASE WHEN orphaned = TRUE THEN 1 ELSE 0 END, orphaned = FALSE,
				    declared_until = %s
				WHERE name = ? AND (declared_until IS NULL OR declared_until < %s)""".formatted(table, nowPlus, nowPlus);
		this.delete = "DELETE FROM %s WHERE name = ?".formatted(table);
		this.take = "UPDATE %s SET version = version + 1 WHERE name = ? AND version = ?".formatted(table);
		this.lockUnlessHeld = dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)
				? "SELECT name FROM %s WHERE name = ? AND version = ?\nFOR UPDATE SKIP LOCKED".formatted(table) : null;
		this.lockNameUnlessHeld = dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)
				? "SELECT name FROM %s WHERE name = ?\nFOR UPDATE SKIP LOCKED".formatted(table) : null;
		String advance = """
				UPDATE %s SET next_run_at = %s, last_tick_at = COALESCE(%s, last_tick_at)%s, updated_at = %s
				WHERE name = ?""";
		this.advance = advance.formatted(table, timestamp, timestamp, "", now);
		this.advanceFired = advance.formatted(table, timestamp, timestamp,
				", last_job_id = ?, last_fired_at = " + now, now);
	}

}
