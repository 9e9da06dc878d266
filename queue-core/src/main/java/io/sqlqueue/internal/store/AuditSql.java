package io.sqlqueue.internal.store;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;

/**
 * Every statement {@link AuditLog} runs on {@code queue_audit}, written once and filled
 * with the dialect's pieces, as {@link JobSql} does for jobs.
 */
final class AuditSql {

	/** Parameters: actor, action, queue, job id, schedule, jobs, detail. */
	final String insert;

	/** The newest entries first; parameters: limit. */
	final String newest;

	/** Parameters: minus the retention in milliseconds. */
	final String deleteOlder;

	/** The dialect's write taking the database's write lock first ({@link Dialect#writeLockFirst}), or {@code null}. */
	final @Nullable String writeLockFirst;

	AuditSql(Dialect dialect, @Nullable String schema) {
		String checkedSchema = Names.requireSchema(schema);
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		String table = prefix + "queue_audit";
		this.writeLockFirst = dialect.writeLockFirst(prefix + "queue_job");
		this.insert = """
				INSERT INTO %s (acted_at, actor, action, queue, job_id, schedule, jobs, detail)
				VALUES (%s, ?, ?, ?, ?, ?, ?, ?)""".formatted(table, dialect.now());
		this.newest = """
				SELECT id, acted_at, actor, action, queue, job_id, schedule, jobs, detail FROM %s
				ORDER BY id DESC
				LIMIT ?""".formatted(table);
		this.deleteOlder = "DELETE FROM %s WHERE acted_at < %s".formatted(table, dialect.nowPlusMillis());
	}

}
