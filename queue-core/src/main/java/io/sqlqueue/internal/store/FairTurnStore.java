package io.sqlqueue.internal.store;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobRecord;

/**
 * The turns of fair queues' keys: each key's place (its pass) and its starts in the share
 * window, and the reads of a fair claim on the jobs' table (the keys with jobs queued, each
 * key's first due jobs, the priorities due).
 */
public class FairTurnStore {

	private final Dialect dialect;

	private final JdbcTemplate jdbc;

	private final FlowSql sql;

	/** The statements on the jobs' table a fair claim runs. */
	private final JobSql jobSql;

	FairTurnStore(Dialect dialect, JdbcTemplate jdbc, FlowSql sql, JobSql jobSql) {
		this.dialect = dialect;
		this.jdbc = jdbc;
		this.sql = sql;
		this.jobSql = jobSql;
	}

	/** How long the starts of a fair queue's keys are counted for the share shown to operators. */
	public static final long FAIR_SHARE_PERIOD = Duration.ofMinutes(1).toMillis();

	/** Every key in a fair queue's turns, with its place; the jobs without a key are the key {@code ""}. */
	public Map<String, FairKey> fairKeyPlaces(String queue) {
		return keyPlaces(this.sql.fairKeys, queue);
	}

	/**
	 * The {@code count} keys of a fair queue whose turns come first (smallest passes), with
	 * their places: all of them when it has no more. The database sorts the queue's keys
	 * (there is no index on the pass) but sends only these.
	 */
	public Map<String, FairKey> firstFairKeyPlaces(String queue, int count) {
		return keyPlaces(this.sql.firstFairKeys, queue, count);
	}

	private Map<String, FairKey> keyPlaces(String statement, Object... args) {
		Map<String, FairKey> keys = new HashMap<>();
		this.jdbc.query(statement, (rs) -> {
			keys.put(rs.getString("fair_key"), new FairKey(rs.getLong("pass"), RateWindow.read(rs)));
		}, args);
		return keys;
	}

	/**
	 * Keys of a fair queue by turn, smallest pass (then key) first. The table has no index on
	 * the pass, so that rewriting passes stays heap-only: a claim orders the keys it read.
	 */
	public static List<Map.Entry<String, FairKey>> inTurnOrder(Map<String, FairKey> keys) {
		List<Map.Entry<String, FairKey>> order = new ArrayList<>(keys.entrySet());
		order.sort(Map.Entry.<String, FairKey>comparingByValue(Comparator.comparingLong(FairKey::pass))
			.thenComparing(Map.Entry.comparingByKey()));
		return order;
	}

	/** Puts keys found with jobs queued into a fair queue's turns at {@code pass}; under the queue's lock. */
	public void enterTurns(String queue, Collection<String> keys, long pass) {
		List<Object[]> rows = new ArrayList<>();
		keys.forEach((key) -> rows.add(new Object[] { pass, 0L, 0, 0, queue, key }));
		this.jdbc.batchUpdate(this.sql.insertFairKey, rows);
	}

	/**
	 * The priority of the request's first job due at {@code now} (a claim's time) in run
	 * order, below {@code below} when not {@code null}; {@code null} when none is due.
	 */
	public @Nullable Integer fairPriority(ClaimRequest request, Instant now, @Nullable Integer below) {
		Object[] args = (below != null) ? readyArgs(request, now, below) : readyArgs(request, now);
		List<Integer> found = priorities(this.jobSql.fairPriority(request.handlers().size(), below != null), args);
		return found.isEmpty() ? null : found.get(0);
	}

	/** Whether the request has a job due at {@code now} at a priority above {@code priority}. */
	public boolean fairDueAbove(ClaimRequest request, Instant now, int priority) {
		return !priorities(this.jobSql.fairDueAbove(request.handlers().size()), readyArgs(request, now, priority))
			.isEmpty();
	}

	private List<Integer> priorities(String statement, Object[] args) {
		return this.jdbc.query(statement, (ps) -> {
			for (int i = 0; i < args.length; i++) {
				this.dialect.setParameter(ps, i + 1, args[i]);
			}
		}, (rs, row) -> rs.getInt(1));
	}

	/**
	 * What a read of the request's ready jobs at a claim's time binds: queue, handlers…, the
	 * time, then {@code more}.
	 */
	private static Object[] readyArgs(ClaimRequest request, Instant now, Object... more) {
		List<Object> args = new ArrayList<>();
		args.add(request.queue());
		args.addAll(request.handlers());
		args.add(now);
		args.addAll(List.of(more));
		return args.toArray();
	}


	/** The largest job id there is (0 for none). */
	public long lastJobId() {
		Long last = this.jdbc.queryForObject(this.jobSql.lastJobId, Long.class);
		return (last != null) ? last : 0;
	}

	/**
	 * The keys of a queue's queued jobs among the next jobs enqueued after job {@code afterId}
	 * (by id: a read that costs what was enqueued since, whatever the backlog; at most 10,000
	 * jobs, the next look goes on from there), {@code ""} for the jobs without a key, and the
	 * largest id read.
	 */
	public KeysSince fairKeysSince(String queue, long afterId) {
		List<String> keys = new ArrayList<>();
		long[] last = { afterId };
		this.jdbc.query(this.jobSql.fairKeysSince, (rs) -> {
			String key = rs.getString("concurrency_key");
			if (rs.getInt("queued") == 1) {
				keys.add((key != null) ? key : "");
			}
			last[0] = Math.max(last[0], rs.getLong("last_id"));
		}, queue, afterId);
		return new KeysSince(keys, last[0]);
	}

	/** Keys of jobs enqueued since a look, and the largest id that look read. */
	public record KeysSince(List<String> keys, long lastId) {
	}

	/** The keys with queued jobs of a queue at one priority, {@code ""} for the jobs without a key. */
	public List<String> fairKeys(String queue, int priority) {
		return this.jdbc.query(this.jobSql.fairKeys(), (rs, row) -> {
			String key = rs.getString("fair_key");
			return (key != null) ? key : "";
		}, queue, priority, queue, priority, queue, priority);
	}

	/**
	 * The first jobs due at {@code now} (a claim's time) of these keys ({@code ""}: the jobs
	 * without a key) at one priority,
	 * after each key's mark in run order ({@link Mark#HEAD}: from its head), up to the count
	 * given for each, by key, each key's in run order.
	 */
	public Map<String, List<JobRecord>> fairHeads(ClaimRequest request, Instant now, int priority,
			Map<String, Integer> wanted, Map<String, Mark> marks) {
		List<String> keys = new ArrayList<>(wanted.keySet());
		keys.remove("");
		int padded = keys.isEmpty() ? 0 : IdChunks.padded(keys.size());
		while (keys.size() < padded) {
			keys.add(keys.get(0));
		}
		List<Object> args = new ArrayList<>();
		boolean withoutKey = wanted.containsKey("");
		if (withoutKey) {
			addArm(args, request, now, priority, "", wanted.get(""), marks.getOrDefault("", Mark.HEAD));
		}
		keys.forEach((key) -> addArm(args, request, now, priority, key, wanted.get(key),
				marks.getOrDefault(key, Mark.HEAD)));
		Map<String, List<JobRecord>> heads = new HashMap<>();
		if (args.isEmpty()) {
			return heads;
		}
		JobRows rows = new JobRows(this.dialect, false);
		Set<Long> seen = new HashSet<>();
		this.jdbc.query(this.jobSql.fairHeads(request.handlers().size(), keys.size(), withoutKey), (ps) -> {
			for (int i = 0; i < args.size(); i++) {
				this.dialect.setParameter(ps, i + 1, args.get(i));
			}
		}, (rs, row) -> rows.mapRow(rs, row)).forEach((job) -> {
			if (seen.add(job.id())) {
				String key = job.concurrencyKey();
				heads.computeIfAbsent((key != null) ? key : "", (k) -> new ArrayList<>()).add(job);
			}
		});
		heads.values().forEach((jobs) -> jobs.sort(ClaimResult.RUN_ORDER));
		return heads;
	}

	private static void addArm(List<Object> args, ClaimRequest request, Instant now, int priority, String key,
			int limit, Mark mark) {
		args.add(request.queue());
		args.addAll(request.handlers());
		args.add(now);
		args.add(priority);
		if (!key.isEmpty()) {
			args.add(key);
		}
		args.add(mark.runAt());
		args.add(mark.runAt());
		args.add(mark.id());
		args.add(limit);
	}

	/**
	 * Where a fair claim of this instance last took a key's jobs: its next read of the key
	 * starts after it in run order, past the index entries of the jobs claimed since the last
	 * vacuum (which a read from the key's head would walk, every claim). A hint, never a
	 * promise: see {@code FairClaim}.
	 */
	public record Mark(Instant runAt, long id) {

		/** From the key's head. */
		public static final Mark HEAD = new Mark(Instant.EPOCH, 0);

	}

	/**
	 * Writes a fair claim's turns under the queue's lock: the passes and share windows of the
	 * keys that started jobs ({@code started}, by key; each in the turns, {@code stored}), and
	 * takes the keys found with nothing due out of the turns.
	 */
	public void writeFairTurns(String queue, Map<String, Long> passes, Map<String, Integer> started,
			Map<String, FairKey> stored, Collection<String> leaving, Instant now) {
		long nowMillis = now.toEpochMilli();
		List<Object[]> updates = new ArrayList<>();
		passes.forEach((key, pass) -> {
			FairKey before = stored.get(key);
			RateWindow window = ((before != null) ? before.window() : RateWindow.EMPTY)
				.plus(started.getOrDefault(key, 0), nowMillis, FAIR_SHARE_PERIOD);
			updates.add(new Object[] { pass, window.start(), window.starts(), window.previous(), queue, key });
		});
		if (!updates.isEmpty()) {
			this.jdbc.batchUpdate(this.sql.updateFairKey, updates);
		}
		if (!leaving.isEmpty()) {
			this.jdbc.batchUpdate(this.sql.deleteFairKey,
					leaving.stream().map((key) -> new Object[] { queue, key }).toList());
		}
	}

	/** A key's place in a fair queue's turns and its starts in the share window. */
	public record FairKey(long pass, RateWindow window) {
	}

}
