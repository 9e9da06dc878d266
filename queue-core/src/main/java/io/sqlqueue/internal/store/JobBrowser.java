package io.sqlqueue.internal.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;

import io.sqlqueue.JobStatus;
import io.sqlqueue.Names;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.JobPage;
import io.sqlqueue.admin.JobSummary;

/**
 * Reads for people looking at the queue (a dashboard): pages of jobs by filter (also the
 * members of a batch), the queued jobs by why they wait, and finished jobs per minute. Nothing here is on the queue's hot path, and nothing writes.
 * <p>
 * Pages use keyset pagination on the primary key: newest first, {@code id < ?} for older
 * pages and {@code id > ?} for newer ones, so the ten-thousandth page costs what the first
 * does. The filter's statements are {@link JobSearchSql}'s; the same serve the counts and
 * the chunks of bulk actions. Where the database would reuse one
 * plan for every value of a filter, each read is planned for its own values
 * ({@link Dialect#customPlansStatement()}).
 */
public class JobBrowser {

	/** Most characters of the last error a list line carries. */
	public static final int ERROR_HEAD_LENGTH = 200;

	/** Most jobs one page holds. */
	public static final int MAX_PAGE_SIZE = io.sqlqueue.admin.QueueAdmin.MAX_PAGE_SIZE;

	private final Dialect dialect;

	private final JdbcTemplate jdbc;

	private final String table;

	private final StoreTransactions transactions;

	private final JobSearchSql search;

	private final Map<Integer, String> finishedQueries = new ConcurrentHashMap<>();

	private final String queuedByQueue;

	private final JobLabels labels;

	public JobBrowser(DataSource dataSource, Dialect dialect, @Nullable String schema) {
		this(StoreContext.on(dataSource, dialect), schema);
	}

	/** The browser of a store, on its context. */
	JobBrowser(StoreContext context, @Nullable String schema) {
		Dialect dialect = context.dialect();
		JdbcTemplate jdbc = context.jdbc();
		this.dialect = dialect;
		this.jdbc = jdbc;
		this.transactions = context.transactions();
		String checkedSchema = Names.requireSchema(schema);
		this.table = (checkedSchema != null) ? dialect.quote(checkedSchema) + ".queue_job" : "queue_job";
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		String parked = JobSearchSql.parked(dialect, prefix + "queue_job_step");
		this.labels = new JobLabels(jdbc, dialect, schema);
		this.search = new JobSearchSql(dialect, schema, """
				j.id, j.queue, j.handler, j.status, j.priority, j.attempts, j.max_attempts, j.run_at,
				    j.created_at, j.started_at, j.finished_at, j.unique_key, j.group_key, j.lease_owner,
				    SUBSTR(j.last_error, 1, %d) AS error_head, CASE WHEN %s THEN 1 ELSE 0 END AS parked"""
			.formatted(ERROR_HEAD_LENGTH, parked));
		// A job that ran before waits out a retry backoff; one that never ran, a delay; but a job
		// parked on a sleep or a wait for a signal waits for that (a park spends no attempt, so it
		// would read as delayed). The parked ones are counted in a branch of their own and taken
		// off the others: a condition in WHERE the database runs as a semi-join (PostgreSQL: 0.5 s
		// for 900,000 queued jobs), where one per row in the SELECT list took five times as long.
		// (DELAYED is a keyword in MariaDB and MySQL.)
		this.queuedByQueue = """
				SELECT q.queue, SUM(q.due_jobs) AS due_jobs, SUM(q.delayed_jobs) AS delayed_jobs,
				    SUM(q.backing_off) AS backing_off, SUM(q.parked_jobs) AS parked_jobs
				FROM (SELECT j.queue,
				          SUM(CASE WHEN j.run_at <= %1$s THEN 1 ELSE 0 END) AS due_jobs,
				          SUM(CASE WHEN j.run_at > %1$s AND j.attempts = 0 THEN 1 ELSE 0 END) AS delayed_jobs,
				          SUM(CASE WHEN j.run_at > %1$s AND j.attempts > 0 THEN 1 ELSE 0 END) AS backing_off,
				          0 AS parked_jobs
				      FROM %2$s j
				      WHERE j.status = 'QUEUED'
				      GROUP BY j.queue
				      UNION ALL
				      SELECT j.queue, 0, -SUM(CASE WHEN j.attempts = 0 THEN 1 ELSE 0 END),
				          -SUM(CASE WHEN j.attempts > 0 THEN 1 ELSE 0 END), COUNT(*)
				      FROM %2$s j
				      WHERE %3$s
				      GROUP BY j.queue) q
				GROUP BY q.queue""".formatted(dialect.now(), this.table, parked);
	}

	/**
	 * Each queue's {@code QUEUED} jobs split by why they wait: due now, delayed, or backing off
	 * after a failed attempt (due or not by the database's clock). Queues without queued jobs
	 * are left out. Reads the queued jobs only.
	 */
	public List<QueuedCount> queuedByQueue() {
		return this.jdbc.query(this.queuedByQueue, (rs, row) -> new QueuedCount(rs.getString("queue"),
				rs.getLong("due_jobs"), rs.getLong("delayed_jobs"), rs.getLong("backing_off"),
				rs.getLong("parked_jobs")));
	}

	/**
	 * Up to {@code limit} jobs that match the filter, newest first: the newest ones when
	 * {@code before} is {@code null}, else those with a smaller id.
	 */
	public JobPage olderThan(JobFilter filter, @Nullable Long before, int limit) {
		int size = checkLimit(limit);
		List<JobSummary> rows = query(filter, (before != null) ? JobSearchSql.Cursor.OLDER : JobSearchSql.Cursor.NONE,
				before, size + 1);
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
		List<JobSummary> rows = query(filter, JobSearchSql.Cursor.NEWER, after, size + 1);
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

	private List<JobSummary> query(JobFilter filter, JobSearchSql.Cursor cursor, @Nullable Long cursorId, int limit) {
		JobSearchSql.Query query = this.search.page(filter, cursor, cursorId, limit);
		List<JobSummary> jobs = read(() -> this.jdbc.query(query.sql(), query, this::mapSummary));
		if (jobs.isEmpty()) {
			return jobs;
		}
		// A page's tags in one more read by the tags' primary key, not a join that repeats its rows.
		Map<Long, List<String>> tags = this.labels.tagsOf(jobs.stream().map(JobSummary::id).toList());
		return tags.isEmpty() ? jobs
				: jobs.stream().map((job) -> job.withTags(tags.getOrDefault(job.id(), List.of()))).toList();
	}

	/**
	 * How many jobs match the filter now: one count over what the filter's indexes (a tag's,
	 * a meta entry's) narrow it to, else over the table.
	 */
	public long count(JobFilter filter) {
		JobSearchSql.Query query = this.search.count(filter);
		Long count = read(() -> this.jdbc.query(query.sql(), query, (rs) -> rs.next() ? rs.getLong(1) : 0L));
		return (count != null) ? count : 0L;
	}

	/** The highest id of any job now, or 0 when there is none. */
	public long maxId() {
		Long max = this.jdbc.queryForObject(this.search.maxId(), Long.class);
		return (max != null) ? max : 0L;
	}

	/**
	 * The ids of up to {@code limit} jobs that match the filter, with an id above {@code after}
	 * and at most {@code upTo}, ascending, with their states as read: the next chunk of a bulk
	 * action. Read without locks, so a state may have changed by the time it is acted on.
	 */
	public Map<Long, JobStatus> idsAfter(JobFilter filter, long after, long upTo, int limit) {
		JobSearchSql.Query query = this.search.ids(filter, after, upTo, limit);
		Map<Long, JobStatus> ids = new LinkedHashMap<>();
		read(() -> {
			this.jdbc.query(query.sql(), query,
					(RowCallbackHandler) (rs) -> ids.put(rs.getLong(1), JobStatus.valueOf(rs.getString(2))));
			return ids;
		});
		return ids;
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
		JobSearchSql.Query query = (after != null) ? this.search.page(filter, JobSearchSql.Cursor.NEWER, after, limit)
				: this.search.page(filter, (before != null) ? JobSearchSql.Cursor.OLDER : JobSearchSql.Cursor.NONE,
						before, limit);
		return new Query(query.sql(), query.args().toArray());
	}

	/** The statement of a count and its parameters. */
	Query countQuery(JobFilter filter) {
		JobSearchSql.Query query = this.search.count(filter);
		return new Query(query.sql(), query.args().toArray());
	}

	/** The statement of a bulk action's chunk and its parameters. */
	Query idsQuery(JobFilter filter, long after, long upTo, int limit) {
		JobSearchSql.Query query = this.search.ids(filter, after, upTo, limit);
		return new Query(query.sql(), query.args().toArray());
	}

	private JobSummary mapSummary(ResultSet rs, int row) throws SQLException {
		JobStatus status = JobStatus.valueOf(rs.getString("status"));
		return new JobSummary(rs.getLong("id"), rs.getString("queue"), rs.getString("handler"),
				status, rs.getInt("priority"), rs.getInt("attempts"),
				rs.getInt("max_attempts"), this.dialect.getTimestamp(rs, "run_at"),
				this.dialect.getTimestamp(rs, "created_at"), this.dialect.getTimestamp(rs, "started_at"),
				this.dialect.getTimestamp(rs, "finished_at"), rs.getString("unique_key"), rs.getString("group_key"),
				rs.getString("error_head"), (status == JobStatus.RUNNING) ? rs.getString("lease_owner") : null,
				rs.getInt("parked") == 1, List.of());
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
