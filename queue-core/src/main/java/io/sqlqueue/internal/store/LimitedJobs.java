package io.sqlqueue.internal.store;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobRecord;

/**
 * A limited queue's jobs as its claim reads and takes them, under the queue's lock: the
 * candidates in run order, the running and due jobs by key, and the claim of those admitted.
 */
public class LimitedJobs {

	private final Dialect dialect;

	private final JdbcTemplate jdbc;

	private final FlowSql sql;

	/** The statements on the jobs' table a limited claim runs. */
	private final JobSql jobSql;

	LimitedJobs(Dialect dialect, JdbcTemplate jdbc, FlowSql sql, JobSql jobSql) {
		this.dialect = dialect;
		this.jdbc = jdbc;
		this.sql = sql;
		this.jobSql = jobSql;
	}

	/** The most ids one statement of a limited claim binds (a chunk of admitted or passed-over jobs). */
	public static final int MAX_IDS = IdChunks.MAX;

	/**
	 * Reads a limited queue's jobs due at {@code now} (the clock reading of the claim's lock,
	 * at which the claim starts them) in run order, unlocked (the claim holds the queue's
	 * lock): of the request's queue and handlers, leaving out the jobs of the {@code excluded}
	 * keys (padded here to a power of two, by repeating one, so that few statement texts serve
	 * every count), the {@code passedOver} jobs (at most {@link #MAX_IDS}) and, with
	 * {@code after}, those up to that job in run order; with {@code countRunning}, counts the
	 * queue's running jobs in the same statement (-1 when not counted, or nothing was read).
	 */
	public Candidates candidates(ClaimRequest request, List<String> excluded, Collection<Long> passedOver,
			@Nullable JobRecord after, int limit, boolean countRunning, Instant now) {
		List<Object> args = new ArrayList<>();
		if (countRunning) {
			args.add(request.queue());
		}
		args.add(request.queue());
		args.addAll(request.handlers());
		args.add(now);
		List<String> keys = new ArrayList<>(excluded);
		int padded = keys.isEmpty() ? 0 : IdChunks.padded(keys.size());
		while (keys.size() < padded) {
			keys.add(keys.get(0));
		}
		args.addAll(keys);
		// At most MAX_IDS ids: one chunk, padded.
		List<Object> notAgain = passedOver.isEmpty() ? List.of() : List.of(IdChunks.of(passedOver).get(0));
		args.addAll(notAgain);
		String statement = this.jobSql.limitedCandidates(new JobSql.CandidateRead(request.handlers().size(),
				keys.size(), notAgain.size(), after != null, countRunning));
		JobRows rows = new JobRows(this.dialect, false);
		int[] running = { -1 };
		List<JobRecord> jobs = this.jdbc.query(statement, (ps) -> {
			int index = 1;
			for (Object arg : args) {
				this.dialect.setParameter(ps, index++, arg);
			}
			if (after != null) {
				ps.setInt(index++, after.priority());
				ps.setInt(index++, after.priority());
				this.dialect.setTimestamp(ps, index++, after.runAt());
				this.dialect.setTimestamp(ps, index++, after.runAt());
				ps.setLong(index++, after.id());
			}
			ps.setInt(index, limit);
		}, (rs, row) -> {
			if (countRunning && row == 0) {
				running[0] = rs.getInt("queue_running");
			}
			return rows.mapRow(rs, row);
		});
		return new Candidates(jobs, running[0]);
	}

	/**
	 * Claims the admitted jobs that are still queued (an operator may have cancelled one
	 * since it was read) and whose rows no other transaction holds (a caller's transaction
	 * that enqueued a job to run after one holds its row until it commits): it passes over
	 * those instead of waiting for them, so that neither this queue's other jobs nor the
	 * instance's poll loop wait for a caller. The jobs start at {@code now} (the lock's clock
	 * reading), as their rate windows counted them; returns those it claimed, as claimed.
	 */
	public List<JobRecord> claimAdmitted(ClaimRequest request, long token, Instant now, List<JobRecord> admitted) {
		Set<Long> taken = new HashSet<>();
		for (Object[] ids : IdChunks.of(admitted.stream().map(JobRecord::id).toList())) {
			taken.addAll(claimQueued(request, token, now, ids));
		}
		return admitted.stream()
			.filter((job) -> taken.contains(job.id()))
			.map((job) -> JobClaims.claimed(job, request.owner(), token, now))
			.toList();
	}

	/** Claims those of these jobs (ids padded by {@link IdChunks}) that it can; returns their ids. */
	private List<Long> claimQueued(ClaimRequest request, long token, Instant now, Object[] ids) {
		String inOne = this.jobSql.claimQueuedPassingOverLocked(ids.length);
		if (inOne != null) {
			return this.jdbc.query(inOne, (ps) -> {
				for (int i = 0; i < ids.length; i++) {
					ps.setObject(1 + i, ids[i]);
				}
				setClaimed(ps, ids.length + 1, request, token, now);
			}, (rs, row) -> rs.getLong(1));
		}
		if (this.dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)) {
			List<Long> locked = this.jdbc.queryForList(this.jobSql.lockQueued(ids.length), Long.class, ids);
			if (!locked.isEmpty()) {
				update(request, token, now, IdChunks.of(locked).get(0));
			}
			return locked;
		}
		// SQLite: no row locks, and no other writer while this transaction writes.
		int updated = update(request, token, now, ids);
		List<Long> distinct = new ArrayList<>(new LinkedHashSet<>(Arrays.stream(ids).map(Long.class::cast).toList()));
		if (updated == distinct.size()) {
			return distinct;
		}
		// An operator cancelled one since it was read: find which are this claim's.
		Object[] args = new Object[ids.length + 1];
		args[0] = token;
		System.arraycopy(ids, 0, args, 1, ids.length);
		return this.jdbc.queryForList(this.jobSql.claimedWith(ids.length), Long.class, args);
	}

	/** Claims these queued jobs, whose rows no other transaction holds; returns how many it updated. */
	private int update(ClaimRequest request, long token, Instant now, Object[] ids) {
		return this.jdbc.update(this.jobSql.claimQueued(ids.length), (ps) -> {
			setClaimed(ps, 1, request, token, now);
			for (int i = 0; i < ids.length; i++) {
				ps.setObject(5 + i, ids[i]);
			}
		});
	}

	/** Binds what a claim writes (owner, token, lease millis, start) from {@code index} on. */
	private void setClaimed(PreparedStatement ps, int index, ClaimRequest request, long token, Instant now)
			throws SQLException {
		ps.setString(index, request.owner());
		ps.setLong(index + 1, token);
		ps.setLong(index + 2, request.leaseMillis());
		this.dialect.setTimestamp(ps, index + 3, now);
	}

	/** The running jobs of a queue: how many, and how many of each concurrency key. */
	public Running running(String queue) {
		Map<String, Integer> byKey = new HashMap<>();
		int[] total = { 0 };
		this.jdbc.query(this.sql.runningByKey, (rs) -> {
			int jobs = rs.getInt("jobs");
			total[0] += jobs;
			String key = rs.getString("concurrency_key");
			if (key != null) {
				byKey.put(key, jobs);
			}
		}, queue);
		return new Running(total[0], byKey);
	}

	/** A queue's due jobs, by concurrency key, and those without one. */
	public DueJobs due(String queue) {
		Map<String, Long> byKey = new HashMap<>();
		long[] withoutKey = { 0 };
		this.jdbc.query(this.sql.dueByKey, (rs) -> {
			String key = rs.getString("concurrency_key");
			if (key == null) {
				withoutKey[0] = rs.getLong("jobs");
			}
			else {
				byKey.put(key, rs.getLong("jobs"));
			}
		}, queue);
		return new DueJobs(byKey, withoutKey[0]);
	}

	/** Running jobs of a queue, in all and by concurrency key. */
	public record Running(int total, Map<String, Integer> byKey) {
	}

	/** Due jobs of a queue, by concurrency key, and those without one. */
	public record DueJobs(Map<String, Long> byKey, long withoutKey) {
	}

	/** Candidates of a limited claim, and the queue's running jobs when counted (else -1). */
	public record Candidates(List<JobRecord> jobs, int running) {
	}

}
