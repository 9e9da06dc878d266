package io.sqlqueue.internal.store;

import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.internal.schema.QueueSchemaMigrator;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every statement on a hot path (claim, complete, heartbeat, reap) uses an index, on a
 * table shaped like a busy queue's: many finished jobs, a few ready ones.
 */
@ResourceLock(TestDatabase.POSTGRESQL_SERVER)
class PostgresQueryPlanIT {

	/**
	 * A scan of a whole table a page reads by key: the jobs, their tags, their metadata. A page's
	 * parked mark may read the sleep and wait records once, hashed, where the planner finds that
	 * cheaper than a probe by the step table's key per row, as with the few such records here.
	 */
	private static final String WHOLE_JOB_TABLE = "Seq Scan on queue_job(_tag|_meta)? ";

	private static TestDatabase.Isolated database;

	private static JdbcTemplate jdbc;

	private static JobSql sql;

	private static JobEndSql ends;

	private static LeaseSql leases;

	private static JobReadSql reads;

	private static JobBrowser browser;

	private static WorkflowSql workflowSql;

	@BeforeAll
	static void fillTable() {
		database = TestDatabase.POSTGRESQL.isolated();
		new QueueSchemaMigrator(database.dataSource(), database.dialect(), database.schema()).migrate();
		jdbc = new JdbcTemplate(database.dataSource());
		sql = new JobSql(database.dialect(), database.schema());
		ends = new JobEndSql(database.dialect(), database.schema());
		leases = new LeaseSql(database.dialect(), database.schema());
		reads = new JobReadSql(database.dialect(), database.schema());
		browser = new JobBrowser(database.dataSource(), database.dialect(), database.schema());
		jdbc.execute("""
				INSERT INTO queue_job (queue, handler, payload, status, max_attempts, finished_at)
				SELECT 'q' || (i % 4), 'h' || (i % 10), '{}', 'SUCCEEDED', 3, now() - i * interval '1 second'
				FROM generate_series(1, 50000) AS i""");
		jdbc.execute("""
				INSERT INTO queue_job (queue, handler, payload, status, max_attempts)
				SELECT 'q' || (i % 4), 'h' || (i % 10), '{}', 'QUEUED', 3
				FROM generate_series(1, 500) AS i""");
		jdbc.execute("""
				INSERT INTO queue_job (queue, handler, payload, status, max_attempts, lease_token, lease_expires_at)
				SELECT 'q' || (i % 4), 'h' || (i % 10), '{}', 'RUNNING', 3, i, now() + interval '1 minute'
				FROM generate_series(1, 50) AS i""");
		jdbc.execute("""
				INSERT INTO queue_dependency (depends_on, job_id)
				SELECT i, i + 1 FROM generate_series(1, 20000) AS i""");
		jdbc.execute("""
				INSERT INTO queue_job_tag (job_id, tag)
				SELECT id, CASE WHEN id % 1000 = 0 THEN 'rare' ELSE 'common' END FROM queue_job""");
		jdbc.execute("""
				INSERT INTO queue_job_meta (job_id, meta_name, meta_value)
				SELECT id, 'tenant', 't' || (id % 50) FROM queue_job""");
		// Durable jobs' records (a step each for a tenth, a sleep for a hundredth), which a page's
		// parked mark reads by the job's key.
		jdbc.execute("""
				INSERT INTO queue_job_step (job_id, seq, kind, name, wake_at)
				SELECT id, 1, 'step', 'charge', NULL FROM queue_job WHERE id % 10 = 0
				UNION ALL
				SELECT id, 2, 'sleep', '1', now() FROM queue_job WHERE id % 100 = 0""");
		jdbc.execute("ANALYZE queue_job");
		jdbc.execute("ANALYZE queue_job_step");
		jdbc.execute("ANALYZE queue_dependency");
		jdbc.execute("ANALYZE queue_job_tag");
		jdbc.execute("ANALYZE queue_job_meta");
		workflowSql = new WorkflowSql(database.dialect(), database.schema());
	}

	@AfterAll
	static void dropTable() {
		database.close();
	}

	@Test
	void claimUsesTheReadyIndex() {
		assertThat(plan(sql.claimReturning(2), "q1", "h1", "h3", "q1", 10, "w", 1L, 30000L))
			.contains("queue_job_ready_idx")
			.doesNotContain("Seq Scan on queue_job j");
	}

	/**
	 * The claim past a mark seeks to the mark in the ready index (the row comparison is an
	 * index condition, not a filter): it never walks the entries before it.
	 */
	@Test
	void claimPastTheMarkSeeksToItInTheReadyIndex() {
		String runAt = java.time.Instant.now().toString();
		String plan = plan(sql.claimReturningPast(1), "q1", "h1", "q1", 0, 10, "q1", "h1", "q1", 0, runAt, 100L, 10,
				"q1", "h1", "q1", 0, 10, 10, "w", 1L, 30000L);
		assertThat(plan).contains("queue_job_ready_idx").doesNotContain("Seq Scan on queue_job j");
		assertThat(plan.lines().filter((line) -> line.contains("Index Cond") && line.contains("ROW(run_at, id) >")))
			.hasSize(1);
	}

	/**
	 * A limited queue's claim: its candidates, from a position on and without the full keys,
	 * read the ready index; its counts of running and due jobs read the running jobs' and the
	 * ready index.
	 */
	@Test
	void limitedClaimUsesTheReadyAndTheLeaseIndex() {
		java.sql.Timestamp runAt = java.sql.Timestamp.from(java.time.Instant.now());
		assertThat(plan(sql.limitedCandidates(new JobSql.CandidateRead(2, 2, 2, true, true)), "q1", "q1", "h1", "h3",
				runAt.toInstant().toString(), "customer:1", "customer:2", 7L, 8L, 0, 0, runAt.toInstant().toString(), runAt.toInstant().toString(),
				10L, 20))
			.contains("queue_job_ready_idx")
			.doesNotContain("Seq Scan on queue_job j");
		FlowSql flow = new FlowSql(database.dialect(), database.schema());
		assertThat(plan(flow.runningByKey, "q1")).contains("queue_job_lease_idx").doesNotContain("Seq Scan");
		// Either partial index of the queued jobs (the fair one leads with the queue too).
		assertThat(plan(flow.dueByKey, "q1")).containsAnyOf("queue_job_ready_idx", "queue_job_fair_idx")
			.doesNotContain("Seq Scan");
		// The keys' windows by the primary key, in a read of their own: joined on the candidates,
		// they were read again for every candidate.
		assertThat(plan(flow.windowsOf(2), "q1", "customer:1", "customer:2")).contains("queue_rate_window_pkey")
			.doesNotContain("Seq Scan");
		assertThat(plan(sql.claimQueued(3), "w", 1L, 30000L, runAt.toInstant().toString(), 1L, 2L, 3L))
			.contains("queue_job_pkey");
		// The admitted jobs, locked by the primary key, passing over rows a caller's transaction holds.
		assertThat(plan(sql.claimQueuedPassingOverLocked(4), 1L, 2L, 3L, 4L, "w", 1L, 30000L,
				runAt.toInstant().toString()))
			.contains("LockRows", "queue_job_pkey")
			.doesNotContain("Seq Scan", "queue_job_ready_idx");
	}

	@Test
	void fencedWritesFindTheJobByItsKey() {
		assertThat(plan(ends.complete, "{}", null, 1L, 1L)).contains("queue_job_pkey");
		assertThat(plan(leases.extendLease, 1000L, 1L, 1L)).contains("queue_job_pkey");
		// The heartbeat: one statement that passes over locked rows, by the primary key as the flush.
		assertThat(plan(leases.extendLeases, new Long[] { 1L, 2L }, new Long[] { 1L, 2L }, 1000L))
			.contains("queue_job_pkey")
			.contains("LockRows")
			.doesNotContain("queue_job_lease_idx")
			.doesNotContain("Seq Scan on queue_job");
		assertThat(plan(leases.running(2), 1L, 2L)).containsAnyOf("queue_job_pkey", "queue_job_lease_idx")
			.doesNotContain("Seq Scan");
		assertThat(plan(ends.reschedule, 1000L, "error", 1L, 1L)).contains("queue_job_pkey");
		// The primary key, never the running jobs' index: read whole, with the dead entries of every
		// job run since the last vacuum, it made each flush cost more than the last. It locks the
		// rows first, passing over those another transaction holds, as the heartbeat.
		assertThat(plan(ends.completeAll, new Long[] { 1L, 2L }, new Long[] { 1L, 2L }, new String[] { null, "1" },
				new String[] { null, null }))
			.contains("queue_job_pkey")
			.contains("LockRows")
			.doesNotContain("queue_job_lease_idx")
			.doesNotContain("Seq Scan on queue_job");
	}

	/** What a job's end settles is found by keys: its row, its edges, its dependents, its batch. */
	@Test
	void settlingFindsEveryRowByItsKey() {
		assertThat(plan(ends.plain(ends.complete), "{}", null, 1L, 1L)).contains("queue_job_pkey");
		assertThat(plan(workflowSql.runningToSettle(2), 1L, 2L)).containsAnyOf("queue_job_pkey", "queue_job_lease_idx")
			.doesNotContain("Seq Scan");
		assertThat(plan(workflowSql.ended(2), 1L, 2L)).contains("queue_job_pkey");
		assertThat(plan(workflowSql.edgesFrom(2), 1L, 2L)).contains("queue_dependency_pkey");
		assertThat(plan(workflowSql.waitingDependents(2), 1L, 2L)).contains("queue_job_pkey");
		assertThat(plan(workflowSql.release, 1L)).contains("queue_job_pkey");
		assertThat(plan(workflowSql.cancelDependent, "reason", 1L)).contains("queue_job_pkey");
		assertThat(plan(workflowSql.countInBatch, 1, 1, 1, 0, 0, 1L)).contains("queue_batch_pkey");
		assertThat(plan(workflowSql.dependenciesOf, 1L)).contains("queue_dependency_job_idx");
	}

	@Test
	void reaperUsesTheLeaseIndex() {
		assertThat(plan(leases.expiredLeases, 100)).contains("queue_job_lease_idx");
		assertThat(plan(leases.lockExpiredLeases, 100)).contains("queue_job_lease_idx").contains("LockRows");
	}

	@Test
	void deadlineSweepUsesTheDeadlineIndexAndCancelChecksTheKey() {
		assertThat(plan(ends.passedDeadlines, 500)).contains("queue_job_deadline_idx");
		// The sweep locks what it ends first, passing over rows other transactions hold.
		assertThat(plan(ends.lockPassedDeadlines, 500)).contains("queue_job_deadline_idx").contains("LockRows")
			.doesNotContain("Seq Scan");
		assertThat(plan(ends.expire, "passed", 1L)).containsAnyOf("queue_job_pkey", "queue_job_deadline_idx")
			.doesNotContain("Seq Scan");
		assertThat(plan(ends.requestCancel, 1L)).contains("queue_job_pkey");
		// Either the primary key, or the running jobs' partial index (a small set).
		assertThat(plan(reads.cancelRequested(3), 1L, 2L, 3L)).containsAnyOf("queue_job_pkey", "queue_job_lease_idx")
			.doesNotContain("Seq Scan");
	}

	@Test
	void backlogUsesTheReadyIndex() {
		assertThat(plan(reads.dueBacklog)).containsAnyOf("queue_job_ready_idx", "queue_job_fair_idx")
			.doesNotContain("Seq Scan");
	}

	/**
	 * A fair claim reads each key's first jobs along the fair index, from a position on; it
	 * finds new keys among the jobs enqueued since its last look along the primary key.
	 */
	@Test
	void fairClaimReadsKeysAlongTheFairIndexAndNewJobsByTheirIds() {
		String runAt = java.time.Instant.now().toString();
		assertThat(plan(sql.fairHeads(1, 1, false), "q1", "h1", runAt, 0, "customer:1", runAt, runAt, 7L, 10))
			.contains("queue_job_fair_idx")
			.doesNotContain("Seq Scan on queue_job j");
		assertThat(plan(sql.fairKeysSince, "q1", 1000L)).contains("queue_job_pkey").doesNotContain("Seq Scan");
	}

	/**
	 * Keyset pages read the primary key from their cursor, however deep; a filter by state
	 * reads an index too (the primary key, or the state's own partial index).
	 */
	@Test
	void browserPagesReadThePrimaryKeyFromTheirCursor() {
		assertThat(plan(browser.pageQuery(JobFilter.ALL, null, null, 51))).contains("Index Scan Backward using queue_job_pkey")
			.doesNotContainPattern(WHOLE_JOB_TABLE);
		assertThat(plan(browser.pageQuery(JobFilter.ALL, 25_000L, null, 51)))
			.contains("Index Scan Backward using queue_job_pkey")
			.doesNotContainPattern(WHOLE_JOB_TABLE);
		assertThat(plan(browser.pageQuery(JobFilter.ALL, null, 25_000L, 51))).contains("Index Scan using queue_job_pkey")
			.doesNotContainPattern(WHOLE_JOB_TABLE);
		assertThat(plan(browser.pageQuery(new JobFilter("q1", null, io.sqlqueue.JobStatus.SUCCEEDED, null), 25_000L,
				null, 51)))
			.doesNotContainPattern(WHOLE_JOB_TABLE);
		assertThat(plan(browser.pageQuery(new JobFilter(null, null, io.sqlqueue.JobStatus.QUEUED, null), null, null, 51)))
			.doesNotContainPattern(WHOLE_JOB_TABLE);
		assertThat(plan(browser.pageQuery(new JobFilter(null, null, io.sqlqueue.JobStatus.RUNNING, null), null, null, 51)))
			.doesNotContainPattern(WHOLE_JOB_TABLE);
	}

	/**
	 * A search by tag or meta entry reads that index in id order from its cursor and joins
	 * the jobs by primary key: a page of a rare tag reads its own rows, not the table.
	 */
	@Test
	void searchPagesByTagOrMetaReadTheirIndexFromTheCursor() {
		assertThat(plan(browser.pageQuery(JobFilter.builder().tag("rare").build(), 40_000L, null, 51)))
			.contains("queue_job_tag_search_idx")
			.contains("queue_job_pkey")
			.doesNotContainPattern(WHOLE_JOB_TABLE)
			.doesNotContain("Sort");
		assertThat(plan(browser.pageQuery(JobFilter.builder().meta("tenant", "t7").build(), null, null, 51)))
			.contains("queue_job_meta_search_idx")
			.doesNotContainPattern(WHOLE_JOB_TABLE);
		assertThat(plan(browser.idsQuery(JobFilter.builder().tag("rare").queue("q1").build(), 0, 60_000, 500)))
			.contains("queue_job_tag_search_idx")
			.doesNotContainPattern(WHOLE_JOB_TABLE);
		// A common tag: the jobs' primary key is read from the cursor (a range the planner
		// carries only because it is written on the jobs' side too), or probed per row.
		assertThat(plan(browser.pageQuery(JobFilter.builder().tag("common").queue("q3").build(), 25_000L, null, 51)))
			.containsAnyOf("(id < '25000'::bigint)", "(id = d.job_id)")
			.doesNotContainPattern(WHOLE_JOB_TABLE);
		assertThat(plan(browser.idsQuery(JobFilter.builder().tag("common").build(), 25_000, 60_000, 500)))
			.containsAnyOf("(id > '25000'::bigint)", "(id = d.job_id)")
			.doesNotContainPattern(WHOLE_JOB_TABLE);
	}

	/** Finished jobs per minute: three ranges of the finished jobs' index, not the table. */
	@Test
	void browserCountsFinishedJobsFromTheirIndex() {
		assertThat(plan(browser.finishedPerMinuteQuery(15))).contains("queue_job_finished_idx").doesNotContain("Seq Scan");
	}

	private static String plan(JobBrowser.Query query) {
		return plan(query.sql(), query.args());
	}

	private static String plan(String statement, Object... args) {
		List<String> lines = jdbc.queryForList("EXPLAIN " + statement, String.class, args);
		return lines.stream().collect(Collectors.joining("\n"));
	}

}
