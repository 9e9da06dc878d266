package io.sqlqueue.internal.store;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.PreparedStatementSetter;

import io.sqlqueue.Names;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.Refusal;
import io.sqlqueue.admin.RefusedException;

/**
 * The statements that find jobs by a {@link JobFilter}: a page (keyset on the id), a count,
 * and the ids of a bulk action's chunk. Every value is a bound parameter; only the shape of
 * the statement (which parts the filter sets) changes its text. A filter with a tag reads
 * the tag's index ({@code queue_job_tag (tag, job_id)}) in id order and joins the jobs, so
 * that a page of a rare tag reads that page only; else one with a meta entry reads the meta
 * index likewise; else the jobs by primary key. Further tags and meta entries are
 * {@code EXISTS} conditions on the same indexes.
 */
final class JobSearchSql {

	private static final Pattern JOB_ID = Pattern.compile("[0-9]{1,18}");

	/** Which way a page goes from its cursor. */
	enum Cursor {

		/** The newest jobs. */
		NONE,

		/** Jobs with a smaller id, newest first. */
		OLDER,

		/** Jobs with a greater id, oldest first (the caller turns the page round). */
		NEWER

	}

	private final Dialect dialect;

	private final String table;

	private final String tagTable;

	private final String metaTable;

	private final String columns;

	private final String parked;

	JobSearchSql(Dialect dialect, @Nullable String schema, String columns) {
		this.dialect = dialect;
		String checkedSchema = Names.requireSchema(schema);
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		this.table = prefix + "queue_job";
		this.tagTable = prefix + "queue_job_tag";
		this.metaTable = prefix + "queue_job_meta";
		this.columns = columns;
		this.parked = parked(dialect, prefix + "queue_job_step");
	}

	/**
	 * Whether the job {@code j} is parked on a durable sleep or a wait for a signal
	 * (docs/durable-steps.md): {@code QUEUED}, due later, at the very moment its record of the
	 * sleep or wait ends, which the park copied into {@code run_at}. A signal that wakes it, or
	 * the end of the wait, makes it due; a snooze, a delay and a retry's backoff leave no such
	 * record. The record is read by its primary key, for {@code QUEUED} jobs due later only.
	 */
	static String parked(Dialect dialect, String stepTable) {
		return """
				(j.status = 'QUEUED' AND j.run_at > %s AND EXISTS (SELECT 1 FROM %s s WHERE s.job_id = j.id \
				AND s.kind IN ('sleep', 'signal') AND s.wake_at = j.run_at))""".formatted(dialect.now(), stepTable);
	}

	/** The condition that the job {@code j} is parked ({@link #parked(Dialect, String)}). */
	String parked() {
		return this.parked;
	}

	/** A page of jobs that match, from the cursor, at most {@code limit} rows. */
	Query page(JobFilter filter, Cursor cursor, @Nullable Long cursorId, int limit) {
		Where where = where(filter);
		if (cursor != Cursor.NONE) {
			where.bound((cursor == Cursor.OLDER) ? "<" : ">", cursorId);
		}
		where.args.add(limit);
		String sql = """
				SELECT %s
				FROM %s%s
				ORDER BY %s %s
				LIMIT ?""".formatted(this.columns, where.from, where.text(), where.key,
				(cursor == Cursor.NEWER) ? "ASC" : "DESC");
		return new Query(sql, where.args);
	}

	/** How many jobs match. */
	Query count(JobFilter filter) {
		Where where = where(filter);
		return new Query("SELECT COUNT(*) FROM %s%s".formatted(where.from, where.text()), where.args);
	}

	/** The ids and states of up to {@code limit} jobs that match, above {@code after} and up to {@code upTo}, ascending. */
	Query ids(JobFilter filter, long after, long upTo, int limit) {
		Where where = where(filter);
		where.bound("<=", upTo);
		where.bound(">", after);
		where.args.add(limit);
		String sql = """
				SELECT j.id, j.status
				FROM %s%s
				ORDER BY %s
				LIMIT ?""".formatted(where.from, where.text(), where.key);
		return new Query(sql, where.args);
	}

	/** The highest id of any job, or 0: where a bulk action stops, so that it leaves later jobs alone. */
	String maxId() {
		return "SELECT COALESCE(MAX(id), 0) FROM " + this.table;
	}

	private Where where(JobFilter filter) {
		Where where = new Where();
		Iterator<String> tags = filter.tags().iterator();
		Iterator<Map.Entry<String, String>> meta = filter.meta().entrySet().iterator();
		if (tags.hasNext()) {
			where.from = this.tagTable + " d\nJOIN " + this.table + " j ON j.id = d.job_id";
			where.key = "d.job_id";
			where.add("d.tag = ?", tags.next());
		}
		else if (meta.hasNext()) {
			Map.Entry<String, String> entry = meta.next();
			where.from = this.metaTable + " d\nJOIN " + this.table + " j ON j.id = d.job_id";
			where.key = "d.job_id";
			where.add("d.meta_name = ? AND d.meta_value = ?", entry.getKey(), entry.getValue());
		}
		else {
			where.from = this.table + " j";
			where.key = "j.id";
		}
		if (filter.queue() != null) {
			where.add("j.queue = ?", filter.queue());
		}
		if (filter.handler() != null) {
			where.add("j.handler = ?", filter.handler());
		}
		if (filter.status() != null) {
			where.add("j.status = ?", filter.status().name());
		}
		if (filter.batch() != null) {
			where.add("j.batch_id = ?", filter.batch());
		}
		if (filter.parked()) {
			where.add(this.parked);
		}
		String search = filter.search();
		if (search != null) {
			if (JOB_ID.matcher(search).matches()) {
				where.add("(j.id = ? OR j.unique_key = ? OR j.group_key = ?)", Long.parseLong(search), search, search);
			}
			else {
				where.add("(j.unique_key = ? OR j.group_key = ?)", search, search);
			}
		}
		if (filter.createdFrom() != null) {
			where.add("j.created_at >= " + this.dialect.timestampParameter(), filter.createdFrom());
		}
		if (filter.createdBefore() != null) {
			where.add("j.created_at < " + this.dialect.timestampParameter(), filter.createdBefore());
		}
		while (tags.hasNext()) {
			where.add("EXISTS (SELECT 1 FROM %s t WHERE t.job_id = j.id AND t.tag = ?)".formatted(this.tagTable),
					tags.next());
		}
		while (meta.hasNext()) {
			Map.Entry<String, String> entry = meta.next();
			where.add("EXISTS (SELECT 1 FROM %s m WHERE m.job_id = j.id AND m.meta_name = ? AND m.meta_value = ?)"
				.formatted(this.metaTable), entry.getKey(), entry.getValue());
		}
		if (!filter.payload().isEmpty()) {
			String field = this.dialect.jsonFieldText("j.payload");
			if (field == null) {
				throw new RefusedException(Refusal.INVALID_FILTER,
						this.dialect.name() + " cannot search jobs by payload field (docs/operations.md#searching-jobs)");
			}
			filter.payload()
				.forEach((path, value) -> where.add(field + " = ?",
						this.dialect.payloadPath(JobFilter.pathKeys(path)), value));
		}
		return where;
	}

	/** A statement and its parameters, instants bound as the dialect binds them. */
	final class Query implements PreparedStatementSetter {

		private final String sql;

		private final List<@Nullable Object> args;

		Query(String sql, List<@Nullable Object> args) {
			this.sql = sql;
			this.args = new ArrayList<>(args);
		}

		String sql() {
			return this.sql;
		}

		List<@Nullable Object> args() {
			return this.args;
		}

		@Override
		public void setValues(PreparedStatement statement) throws SQLException {
			int index = 1;
			for (Object arg : this.args) {
				if (arg instanceof Instant instant) {
					JobSearchSql.this.dialect.setTimestamp(statement, index, instant);
				}
				else {
					statement.setObject(index, arg);
				}
				index++;
			}
		}

	}

	private static final class Where {

		String from = "";

		String key = "";

		final List<String> conditions = new ArrayList<>();

		final List<@Nullable Object> args = new ArrayList<>();

		/**
		 * A bound on the key, written first. Where a label's index drives, on the jobs' id too:
		 * the planner carries equalities across the join, not ranges, and a merge join would
		 * read the jobs' primary key from its end down to the cursor.
		 */
		void bound(String operator, @Nullable Object value) {
			if (!this.key.equals("j.id")) {
				this.conditions.add(0, "j.id " + operator + " ?");
				this.args.add(0, value);
			}
			this.conditions.add(0, this.key + " " + operator + " ?");
			this.args.add(0, value);
		}

		void add(String condition, Object... values) {
			this.conditions.add(condition);
			this.args.addAll(List.of(values));
		}

		String text() {
			return this.conditions.isEmpty() ? "" : "\nWHERE " + String.join("\n  AND ", this.conditions);
		}

	}

}
