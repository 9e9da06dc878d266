package io.sqlqueue.internal.store;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;

/**
 * The reads of jobs as stored now ({@link JobReadSql}): by id (with labels), by ids (the
 * awaiters' polls), by handler and state, which leases' writes landed, whose cancel was asked
 * for, the due backlog and the counts per queue ({@link QueueCounter}). Each runs in the
 * caller's transaction when there is one, else commits at once.
 */
final class JobReads {

	private final JdbcTemplate jdbc;

	private final Dialect dialect;

	private final JobReadSql sql;

	private final JobLabels labels;

	private final QueueCounter counter;

	JobReads(StoreContext context, JobReadSql sql, JobLabels labels, String tableName) {
		this.jdbc = context.jdbc();
		this.dialect = context.dialect();
		this.sql = sql;
		this.labels = labels;
		this.counter = this.dialect.queueCounter(this.jdbc, tableName, this::countAll);
	}

	/** The job of this id as stored now, with its labels. */
	Optional<JobRecord> find(long id) {
		return this.labels.withLabels(this.jdbc.query(this.sql.find, jobRows(), id)).stream().findFirst();
	}

	/**
	 * The jobs of these ids, as stored now (fewer when some do not exist), without their
	 * labels: for the awaiters' polls, which read states only.
	 */
	List<JobRecord> findAll(Collection<Long> ids) {
		List<JobRecord> found = new ArrayList<>();
		for (Object[] chunk : IdChunks.of(ids)) {
			found.addAll(this.jdbc.query(this.sql.findAll(chunk.length), jobRows(), chunk));
		}
		return found;
	}

	/** Up to {@code limit} jobs of this handler in this state, oldest (lowest id) first. */
	List<JobRecord> findByHandler(String handler, JobStatus status, int limit) {
		return this.jdbc.query(this.sql.findByHandler, jobRows(), handler, status.name(), limit);
	}

	/**
	 * The leases whose job no longer runs and still carries their token: the write that ended
	 * that attempt landed, even if its caller never heard so (a commit whose answer was lost
	 * to a failover). Any other lease that a fenced write missed was handed on, or its job
	 * changed by an operator.
	 */
	Set<Lease> finishedUnder(Collection<Lease> leases) {
		if (leases.isEmpty()) {
			return Set.of();
		}
		Set<Lease> finished = new HashSet<>();
		for (Object[] chunk : IdChunks.of(leases.stream().map(Lease::jobId).toList())) {
			this.jdbc.query(this.sql.finishedUnder(chunk.length), (rs) -> {
				long token = rs.getLong("lease_token");
				if (!rs.wasNull()) {
					finished.add(new Lease(rs.getLong("id"), token));
				}
			}, chunk);
		}
		finished.retainAll(leases);
		return finished;
	}

	/** Of these running jobs, the ones whose cancel was asked for. */
	Set<Long> cancelRequested(Collection<Long> ids) {
		if (ids.isEmpty()) {
			return Set.of();
		}
		Set<Long> requested = new HashSet<>();
		for (Object[] chunk : IdChunks.of(ids)) {
			requested.addAll(this.jdbc.queryForList(this.sql.cancelRequested(chunk.length), Long.class, chunk));
		}
		return requested;
	}

	/** Due jobs per queue and handler, with the age of the oldest. */
	List<Backlog> dueBacklog() {
		return this.jdbc.query(this.sql.dueBacklog, (rs, row) -> {
			Duration age = age(this.dialect.getTimestamp(rs, "oldest_run_at"), this.dialect.getTimestamp(rs, "db_now"));
			return new Backlog(rs.getString("queue"), rs.getString("handler"), rs.getLong("due_jobs"), age);
		});
	}

	/**
	 * Jobs per queue and status, with the age of each queue's oldest due job, by this
	 * database's {@link QueueCounter}: meant for a schedule rather than for every look.
	 */
	List<QueueCount> countsByQueue() {
		return this.counter.count();
	}

	/**
	 * Jobs per queue and status by one grouped query over the whole table, exactly: what
	 * {@link #countsByQueue()} runs where its counter reads the table whole (small tables,
	 * every database but PostgreSQL), and what the benchmark times the counter against.
	 */
	List<QueueCount> countAll() {
		return this.jdbc.query(this.sql.countsByQueue, (rs, row) -> {
			Duration age = age(this.dialect.getTimestamp(rs, "oldest_due"), this.dialect.getTimestamp(rs, "db_now"));
			return new QueueCount(rs.getString("queue"), JobStatus.valueOf(rs.getString("status")),
					rs.getLong("jobs"), age);
		});
	}

	/** How long ago {@code oldest} was at the database's {@code now}; zero when either is missing. */
	private static Duration age(@Nullable Instant oldest, @Nullable Instant now) {
		return (oldest != null && now != null && now.isAfter(oldest)) ? Duration.between(oldest, now) : Duration.ZERO;
	}

	private RowMapper<JobRecord> jobRows() {
		return new JobRows(this.dialect, false);
	}

}
