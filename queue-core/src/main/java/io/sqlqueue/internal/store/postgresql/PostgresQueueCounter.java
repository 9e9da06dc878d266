package io.sqlqueue.internal.store.postgresql;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.springframework.jdbc.core.JdbcOperations;

import io.sqlqueue.JobStatus;
import io.sqlqueue.internal.store.QueueCount;
import io.sqlqueue.internal.store.QueueCounter;

/**
 * Counts on PostgreSQL. A table smaller than {@link #DEFAULT_EXACT_BELOW_PAGES} pages is
 * counted exactly, by one grouped query. A larger one is never read whole:
 * <ul>
 * <li>{@code QUEUED}: the queues that have queued jobs are found by a skip scan of the ready
 * index (one probe per queue); each is counted exactly up to {@link #DEFAULT_EXACT_UP_TO}
 * entries of that index, and its oldest due job is found exactly by one probe per priority
 * level, so the stale check and {@code oldestDueAge} never rest on an estimate. A queue with
 * more queued jobs than that shows the sample's estimate (rough: pages hold runs of rows
 * enqueued together), never less than the cap.</li>
 * <li>{@code RUNNING}: counted exactly through the lease index (as many rows as workers).</li>
 * <li>{@code WAITING} and the finished states: estimated from a sample of about
 * {@link #DEFAULT_SAMPLE_PAGES} pages ({@code TABLESAMPLE SYSTEM}), scaled to the table's
 * pages. A state with few rows among millions may show none: the dashboard's search and
 * {@code find} read them exactly.</li>
 * </ul>
 */
final class PostgresQueueCounter implements QueueCounter {

	/** About 160 MB of table, some half a million rows: counted exactly within tens of milliseconds. */
	static final long DEFAULT_EXACT_BELOW_PAGES = 20_000;

	static final int DEFAULT_EXACT_UP_TO = 1_000;

	static final long DEFAULT_SAMPLE_PAGES = 300;

	private final JdbcOperations jdbc;

	private final String table;

	private final QueueCounter exact;

	private final long exactBelowPages;

	private final int exactUpTo;

	private final long samplePages;

	private final String pages;

	private final String queued;

	private final String running;

	private final String sample;

	PostgresQueueCounter(JdbcOperations jdbc, String table, QueueCounter exact) {
		this(jdbc, table, exact, DEFAULT_EXACT_BELOW_PAGES, DEFAULT_EXACT_UP_TO, DEFAULT_SAMPLE_PAGES);
	}

	PostgresQueueCounter(JdbcOperations jdbc, String table, QueueCounter exact, long exactBelowPages, int exactUpTo,
			long samplePages) {
		this.jdbc = jdbc;
		this.table = table;
		this.exact = exact;
		this.exactBelowPages = exactBelowPages;
		this.exactUpTo = exactUpTo;
		this.samplePages = samplePages;
		// The file's length, not the statistics: right without ANALYZE, which nothing may run.
		this.pages = "SELECT pg_relation_size(CAST(? AS regclass)) / current_setting('block_size')::bigint";
		// One statement, all from the ready index: a skip scan finds each queue with queued jobs
		// (one probe a queue); each is counted up to the cap; and since the index orders a queue
		// by priority, then run_at, the first entry of each priority level is that level's
		// oldest, so one probe per level finds the queue's oldest queued job.
		this.queued = """
				WITH RECURSIVE queues(queue) AS (
				    (SELECT queue FROM %1$s WHERE status = 'QUEUED' ORDER BY queue LIMIT 1)
				    UNION ALL
				    SELECT (SELECT j.queue FROM %1$s j WHERE j.status = 'QUEUED' AND j.queue > q.queue
				            ORDER BY j.queue LIMIT 1)
				    FROM queues q WHERE q.queue IS NOT NULL)
				SELECT q.queue, counted.jobs, oldest.run_at AS oldest, now() AS db_now
				FROM queues q
				CROSS JOIN LATERAL (
				    SELECT COUNT(*) AS jobs FROM (
				        SELECT 1 FROM %1$s j WHERE j.status = 'QUEUED' AND j.queue = q.queue LIMIT ?) AS capped
				) AS counted
				CROSS JOIN LATERAL (
				    WITH RECURSIVE levels(priority) AS (
				        (SELECT j.priority FROM %1$s j WHERE j.status = 'QUEUED' AND j.queue = q.queue
				         ORDER BY j.priority DESC LIMIT 1)
				        UNION ALL
				        SELECT (SELECT j.priority FROM %1$s j WHERE j.status = 'QUEUED' AND j.queue = q.queue
				                AND j.priority < l.priority ORDER BY j.priority DESC LIMIT 1)
				        FROM levels l WHERE l.priority IS NOT NULL)
				    SELECT MIN((SELECT j.run_at FROM %1$s j WHERE j.status = 'QUEUED' AND j.queue = q.queue
				                AND j.priority = l.priority ORDER BY j.run_at LIMIT 1)) AS run_at
				    FROM levels l WHERE l.priority IS NOT NULL
				) AS oldest
				WHERE q.queue IS NOT NULL""".formatted(table);
		this.running = """
				SELECT queue, COUNT(*) AS jobs FROM %s WHERE status = 'RUNNING' GROUP BY queue""".formatted(table);
		this.sample = """
				SELECT queue, status, COUNT(*) AS jobs FROM %s TABLESAMPLE SYSTEM (?)
				WHERE status <> 'RUNNING'
				GROUP BY queue, status""".formatted(table);
	}

	@Override
	public List<QueueCount> count() {
		Long tablePages = this.jdbc.queryForObject(this.pages, Long.class, this.table);
		if (tablePages == null || tablePages < this.exactBelowPages) {
			return this.exact.count();
		}
		double percent = Math.min(100.0, 100.0 * this.samplePages / Math.max(tablePages, 1));
		Map<String, Map<JobStatus, QueueCount>> counts = new TreeMap<>();
		Map<String, Map<JobStatus, Long>> sampled = sample(percent);
		this.jdbc.query(this.queued, (rs) -> {
			String queue = rs.getString("queue");
			OffsetDateTime oldest = rs.getObject("oldest", OffsetDateTime.class);
			Instant now = rs.getObject("db_now", OffsetDateTime.class).toInstant();
			Duration oldestDue = (oldest != null && oldest.toInstant().isBefore(now))
					? Duration.between(oldest.toInstant(), now) : Duration.ZERO;
			long jobs = rs.getLong("jobs");
			long estimated = sampled.getOrDefault(queue, Map.of()).getOrDefault(JobStatus.QUEUED, 0L);
			put(counts, (jobs <= this.exactUpTo) ? new QueueCount(queue, JobStatus.QUEUED, jobs, oldestDue)
					: new QueueCount(queue, JobStatus.QUEUED, Math.max(estimated, jobs), oldestDue, true));
		}, this.exactUpTo + 1);
		this.jdbc.query(this.running, (rs) -> {
			put(counts, new QueueCount(rs.getString("queue"), JobStatus.RUNNING, rs.getLong("jobs"), Duration.ZERO));
		});
		sampled.forEach((queue, byStatus) -> byStatus.forEach((status, jobs) -> {
			if (status != JobStatus.QUEUED) {
				put(counts, new QueueCount(queue, status, jobs, Duration.ZERO, true));
			}
		}));
		List<QueueCount> all = new ArrayList<>();
		counts.values().forEach((byStatus) -> all.addAll(byStatus.values()));
		return all;
	}

	/** Jobs per queue and state in a sample of the table's pages, scaled to the whole table. */
	private Map<String, Map<JobStatus, Long>> sample(double percent) {
		Map<String, Map<JobStatus, Long>> sampled = new TreeMap<>();
		this.jdbc.query(this.sample, (rs) -> {
			long scaled = Math.round(rs.getLong("jobs") * 100.0 / percent);
			sampled.computeIfAbsent(rs.getString("queue"), (queue) -> new EnumMap<>(JobStatus.class))
				.put(JobStatus.valueOf(rs.getString("status")), scaled);
		}, percent);
		return sampled;
	}

	private static void put(Map<String, Map<JobStatus, QueueCount>> counts, QueueCount count) {
		counts.computeIfAbsent(count.queue(), (queue) -> new EnumMap<>(JobStatus.class)).put(count.status(), count);
	}

}
