package io.sqlqueue.internal.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobStatus;
import io.sqlqueue.Names;

/**
 * Reads for people looking at the queue (a dashboard): pages of jobs by filter (also the
 * members of a batch), the queued jobs by why they wait, and finished jobs per minute. Nothing here is on the queue's hot path, and nothing writes.
 * <p>
 * Pages use keyset pagination on the primary key: newest first, {@code id < ?} for older
 * pages and {@code id > ?} for newer ones, so the ten-thousandth page costs what the first
 * does. A filter adds equality conditions; the statement's text depends only on which
 * filters are set, so each combination is written once. Where the database would reuse one
 * plan for every value of a filter, each read is planned for its own values
 * ({@link Dialect#customPlansStatement()}).
 */
public class JobBrowser {

	/** Most characters of the last error a list line carries. */
	public static final int ERROR_HEAD_LENGTH = 200;

	/** Most jobs one page holds. */
	public static final int MAX_PAGE_SIZE = 500;

	private static final Pattern JOB_ID = Pattern.compile("[0-9]{1,18}");

	private static final int OLDER = 1;

	private static final int QUEUE = 2;

	private static final int HANDLER = 4;

	private static final int STATUS = 8;

	private static final int SEARCH = 16;

	private static final int SEARCH_ID = 32;

	private static final int NEWER = 64;

	private static final int BATCH = 128;

	private final Dialect dialect;

	private final JdbcTemplate jdbc;

	private final String table;

	private final StoreTransactions transactions;

	private final Map<Integer, String> pageQueries = new ConcurrentHashMap<>();

	private final Map<Integer, String> finishedQueries = new ConcurrentHashMap<>();

	private final String queuedByQueue;

	public JobBrowser(DataSource dataSource, Dialect dialect, @Nullable String schema) {
		this(JobStore.jdbcTemplate(dataSource, dialect), new StoreTransactions(dataSource, dialect), dialect, schema);
	}

	/** The browser of a {@link JobStore}, on its template and transactions. */
	JobBrowser(JdbcTemplate jdbc, StoreTransactions transactions, Dialect dialect, @Nullable String schema) {
		this.dialect = dialect;
		this.jdbc = jdbc;
		this.transactions = transactions;
		String checkedSchema = Names.requireSchema(schema);
		this.table = (checkedSchema != null) ? dialect.quote(checkedSchema) + ".queue_job" : "queue_job";
		// A job that ran before waits out a retry backoff; one that never ran, a delay. (DELAYED
		// is a keyword in MariaDB and MySQL.)
		this.queuedByQueue = """
				SELECT queue,
				    SUM(CASE WHEN run_at <= %1$s THEN 1 ELSE 0 END) AS due_jobs,
				    SUM(CASE WHEN run_at > %1$s AND attempts = 0 THEN 1 ELSE 0 END) AS delayed_jobs,
				    SUM(CASE WHEN run_at > %1$s AND attempts > 0 THEN 1 ELSE 0 END) AS backing_off
				FROM %2$s
				WHERE status = 'QUEUED'
				GROUP BY queue""".formatted(dialect.now(), this.table);
	}

	/**
	 * Each queue's {@code QUEUED} jobs split by why they wait: due now, delayed, or backing off
	 * after a failed attempt (due or not by the database's clock). Queues without queued jobs
	 * are left out. Reads the queued jobs only.
	 */
	public List<QueuedCount> queuedByQueue() {
		return this.jdbc.query(this.queuedByQueue, (rs, row) -> new QueuedCount(rs.getString("queue"),
				rs.getLong("due_jobs"), rs.getLong("delayed_jobs"), rs.getLong("backing_off")));
	}

	/**
	 * Up to {@code limit} jobs that match the filter, newest first: the newest ones when
	 * {@code before} is {@code null}, else those with a smaller id.
	 */
	public JobPage olderThan(JobFilter filter, @Nullable Long before, int limit) {
		int size = checkLimit(limit);
		List<JobSummary> rows = query(filter, (before != null) ? OLDER : 0, before, size + 1);
		List<JobSummary> jobs = rows.subList(0, Math.min(size, rows.size()));
		Long older = (rows.size() > size) ? jobs.get(jobs.size() - 1).id() : null;
		Long newer = null;
		if (before != null) {
			newer = jobs.isEmpty() ? before - 1 : jobs.get(0).id();
		}
		return new JobPage(List.copyOf(jobs), older, newer);
	}

	/** Up to {@code limit} jobs that match the filter with an id greater than {@code after}, newest first. */
	public JobPage newerThan(JobFilter filter, long after, int limit) {
		int size = checkLimit(limit);
		List<JobSummary> rows = query(filter, NEWER, after, size + 1);
		List<JobSummary> jobs = new ArrayList<>(rows.subList(0, Math.min(size, rows.size())));
		Collections.reverse(jobs);
		Long newer = (rows.size() > size) ? jobs.get(0).id() : null;
		Long older = jobs.isEmpty() ? after + 1 : jobs.get(jobs.size() - 1).id();
		return new JobPage(List.copyOf(jobs), older, newer);
	}

	/**
	 * Jobs that reached a finished state in each of the last {@code minutes} minutes (by
	 * {@code finished_at}, on the database's clock), per queue and state; minutes without
	 * any are left out. Reads the finished jobs' index, not the table.
	 */
	public List<FinishedCount> finishedPerMinute(int minutes) {
		Query query = finishedPerMinuteQuery(minutes);
		return read(() -> this.jdbc.query(query.sql(), (rs, row) -> new FinishedCount(rs.getString("queue"),
				JobStatus.valueOf(rs.getString("status")), rs.getInt("minutes_ago"), rs.getLong("jobs")),
				query.args()));
	}

	/** The statement of {@link #queuedByQueue}. */
	String queuedByQueueQuery() {
		return this.queuedByQueue;
	}

	/** The statement of {@link #finishedPerMinute} and its parameters. */
	Query finishedPerMinuteQuery(int minutes) {
		if (minutes < 1 || minutes > 24 * 60) {
			throw new IllegalArgumentException("minutes must be 1 to 1440, not " + minutes);
		}
		List<Object> args = new ArrayList<>();
		for (int minute = 1; minute < minutes; minute++) {
			args.add(-minute * 60_000L);
		}
		for (int status = 0; status < 3; status++) {
			args.add(-minutes * 60_000L);
		}
		return new Query(this.finishedQueries.computeIfAbsent(minutes, this::finishedPerMinuteText), args.toArray());
	}

	private String finishedPerMinuteText(int minutes) {
		String nowPlus = this.dialect.nowPlusMillis();
		StringBuilder bucket = new StringBuilder("CASE");
		for (int minute = 1; minute < minutes; minute++) {
			bucket.append(" WHEN j.finished_at >= ").append(nowPlus).append(" THEN ").append(minute - 1);
		}
		bucket.append(" ELSE ").append(minutes - 1).append(" END");
		// A derived table: the bucket holds bound parameters, which GROUP BY cannot repeat. One
		// condition per state, so that PostgreSQL reads three ranges of the finished jobs' index
		// (status, finished_at); with "status IN (…)" it reads the whole index.
		return """
				SELECT f.queue, f.status, f.minutes_ago, COUNT(*) AS jobs FROM (
				    SELECT j.queue, j.status, %2$s AS minutes_ago
				    FROM %3$s j
				    WHERE (j.status = 'SUCCEEDED' AND j.finished_at >= %1$s)
				       OR (j.status = 'FAILED' AND j.finished_at >= %1$s)
				       OR (j.status = 'CANCELLED' AND j.finished_at >= %1$s)) f
				GROUP BY f.queue, f.status, f.minutes_ago""".formatted(nowPlus, bucket, this.table);
	}

	private List<JobSummary> query(JobFilter filter, int cursor, @Nullable Long cursorId, int limit) {
		Query query = shapedQuery(filter, cursor, cursorId, limit);
		return read(() -> this.jdbc.query(query.sql(), this::mapSummary, query.args()));
	}

	/** Runs a read planned for its own parameters ({@link Dialect#customPlansStatement()}). */
	private <T> T read(Supplier<T> query) {
		String customPlans = this.dialect.customPlansStatement();
		if (customPlans == null) {
			return query.get();
		}
		return this.transactions.readOnly(() -> {
			this.jdbc.execute(customPlans);
			return query.get();
		});
	}

	/** The statement of a page (newest first from {@code before}, or oldest first from {@code after}) and its parameters. */
	Query pageQuery(JobFilter filter, @Nullable Long before, @Nullable Long after, int limit) {
		if (after != null) {
			return shapedQuery(filter, NEWER, after, limit);
		}
		return shapedQuery(filter, (before != null) ? OLDER : 0, before, limit);
	}

	private Query shapedQuery(JobFilter filter, int cursor, @Nullable Long cursorId, int limit) {
		int shape = cursor;
		List<Object> args = new ArrayList<>();
		if (cursorId != null) {
			args.add(cursorId);
		}
		if (filter.queue() != null) {
			shape |= QUEUE;
			args.add(filter.queue());
		}
		if (filter.handler() != null) {
			shape |= HANDLER;
			args.add(filter.handler());
		}
		if (filter.status() != null) {
			shape |= STATUS;
			args.add(filter.status().name());
		}
		if (filter.batch() != null) {
			shape |= BATCH;
			args.add(filter.batch());
		}
		String search = filter.search();
		if (search != null) {
			shape |= SEARCH;
			if (JOB_ID.matcher(search).matches()) {
				shape |= SEARCH_ID;
				args.add(Long.parseLong(search));
			}
			args.add(search);
			args.add(search);
		}
		args.add(limit);
		return new Query(this.pageQueries.computeIfAbsent(shape, this::pageText), args.toArray());
	}

	/** The page statement for one combination of cursor and filters; parameters in that order, then the limit. */
	private String pageText(int shape) {
		List<String> conditions = new ArrayList<>();
		if ((shape & OLDER) != 0) {
			conditions.add("j.id < ?");
		}
		if ((shape & NEWER) != 0) {
			conditions.add("j.id > ?");
		}
		if ((shape & QUEUE) != 0) {
			conditions.add("j.queue = ?");
		}
		if ((shape & HANDLER) != 0) {
			conditions.add("j.handler = ?");
		}
		if ((shape & STATUS) != 0) {
			conditions.add("j.status = ?");
		}
		if ((shape & BATCH) != 0) {
			conditions.add("j.batch_id = ?");
		}
		if ((shape & SEARCH) != 0) {
			conditions.add(((shape & SEARCH_ID) != 0) ? "(j.id = ? OR j.unique_key = ? OR j.group_key = ?)"
					: "(j.unique_key = ? OR j.group_key = ?)");
		}
		String where = conditions.isEmpty() ? "" : "\nWHERE " + String.join(" AND ", conditions);
		String order = ((shape & NEWER) != 0) ? "ASC" : "DESC";
		return """
				SELECT j.id, j.queue, j.handler, j.status, j.priority, j.attempts, j.max_attempts, j.run_at,
				    j.created_at, j.started_at, j.finished_at, j.unique_key, j.group_key, j.lease_owner,
				    SUBSTR(j.last_error, 1, %d) AS error_head
				FROM %s j%s
				ORDER BY j.id %s
				LIMIT ?""".formatted(ERROR_HEAD_LENGTH, this.table, where, order);
	}

	private JobSummary mapSummary(ResultSet rs, int row) throws SQLException {
		JobStatus status = JobStatus.valueOf(rs.getString("status"));
		return new JobSummary(rs.getLong("id"), rs.getString("queue"), rs.getString("handler"),
				status, rs.getInt("priority"), rs.getInt("attempts"),
				rs.getInt("max_attempts"), this.dialect.getTimestamp(rs, "run_at"),
				this.dialect.getTimestamp(rs, "created_at"), this.dialect.getTimestamp(rs, "started_at"),
				this.dialect.getTimestamp(rs, "finished_at"), rs.getString("unique_key"), rs.getString("group_key"),
				rs.getString("error_head"), (status == JobStatus.RUNNING) ? rs.getString("lease_owner") : null);
	}

	/** A statement and its parameters. */
	record Query(String sql, Object[] args) {
	}

	private static int checkLimit(int limit) {
		if (limit < 1 || limit > MAX_PAGE_SIZE) {
			throw new IllegalArgumentException("A page holds 1 to " + MAX_PAGE_SIZE + " jobs, not " + limit);
		}
		return limit;
	}

}
