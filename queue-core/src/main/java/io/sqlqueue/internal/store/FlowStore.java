package io.sqlqueue.internal.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobRecord;
import io.sqlqueue.flow.Fairness;
import io.sqlqueue.flow.KeyLimit;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.QueueLimits;
import io.sqlqueue.flow.RateLimit;

/**
 * Flow control's verbs as SQL: the limits (set, removed, read), and the counts a claim of a
 * limited queue reads under the queue's lock. A change of a queue's limits locks the queue's
 * flow row too, so it falls between two claims, and moves the row's version, so every
 * instance reads the new limits at its next claim; on PostgreSQL it also wakes every
 * instance's Manager (as an enqueue does), so that a raised or removed limit frees the
 * waiting jobs at once.
 */
public class FlowStore {

	private final Dialect dialect;

	private final JdbcTemplate jdbc;

	private final FlowSql sql;

	/** The statements on the jobs' table a limited claim runs. */
	private final JobSql jobSql;

	/** A change of limits commits at once, apart from any transaction of the caller: {@link StoreTransactions#inNewReadCommitted}. */
	private final StoreTransactions transactions;

	private final @Nullable String notifyChannel;

	public FlowStore(DataSource dataSource, Dialect dialect, @Nullable String schema) {
		this(dataSource, dialect, schema, null);
	}

	/**
	 * @param notifyChannel where enqueues are announced ({@link io.sqlqueue.internal.store.postgresql.PostgresNotifications}), to
	 * announce changed limits there too; {@code null} for none
	 */
	public FlowStore(DataSource dataSource, Dialect dialect, @Nullable String schema, @Nullable String notifyChannel) {
		this(JobStore.jdbcTemplate(dataSource, dialect), new StoreTransactions(dataSource, dialect), dialect,
				new JobSql(dialect, schema), schema, notifyChannel);
	}

	/** The flow store of a {@link JobStore}, on its template, transactions and statements. */
	FlowStore(JdbcTemplate jdbc, StoreTransactions transactions, Dialect dialect, JobSql jobSql,
			@Nullable String schema, @Nullable String notifyChannel) {
		this.dialect = dialect;
		this.jdbc = jdbc;
		this.sql = new FlowSql(dialect, schema);
		this.jobSql = jobSql;
		this.transactions = transactions;
		this.notifyChannel = notifyChannel;
	}

	/** Every stored limit, by queue and key pattern. */
	public List<LimitRow> all() {
		return this.jdbc.query(this.sql.allLimits, this::mapLimit);
	}

	/** The limits and fair turns of one queue (none when it has neither). */
	public QueueLimits limits(String queue) {
		List<Long> version = this.jdbc.queryForList(this.sql.flowVersion, Long.class, queue);
		if (version.isEmpty()) {
			return QueueLimits.none(queue);
		}
		return limitsOf(queue, this.jdbc.query(this.sql.limitsOfQueue, this::mapLimit, queue),
				fairnessOf(this.jdbc.query(this.sql.fairnessOfQueue, this::mapWeight, queue)), version.get(0));
	}

	/** The limits and fair turns of every queue that has either. */
	public List<QueueLimits> allLimits() {
		Map<String, List<LimitRow>> byQueue = new LinkedHashMap<>();
		all().forEach((row) -> byQueue.computeIfAbsent(row.queue(), (queue) -> new ArrayList<>()).add(row));
		Map<String, List<WeightRow>> weights = new LinkedHashMap<>();
		allWeights().forEach((row) -> weights.computeIfAbsent(row.queue(), (queue) -> new ArrayList<>()).add(row));
		weights.keySet().forEach((queue) -> byQueue.putIfAbsent(queue, List.of()));
		List<QueueLimits> limits = new ArrayList<>();
		byQueue.forEach((queue, rows) -> {
			Fairness fairness = fairnessOf(weights.getOrDefault(queue, List.of()));
			long version = rows.isEmpty() ? this.jdbc.queryForList(this.sql.flowVersion, Long.class, queue)
				.stream()
				.findFirst()
				.orElse(0L) : rows.get(0).version();
			limits.add(limitsOf(queue, rows, fairness, version));
		});
		limits.sort(Comparator.comparing(QueueLimits::queue));
		return limits;
	}

	/** Every stored weight of fair queues (a queue's own row, key pattern '', makes it fair). */
	public List<WeightRow> allWeights() {
		return this.jdbc.query(this.sql.allFairness, this::mapWeight);
	}

	/**
	 * Makes the queue's keys take turns with these weights, replacing the fair turns it had
	 * (their places in the turns stay).
	 */
	public void putFairness(String queue, Fairness fairness, String source) {
		this.transactions.inNewReadCommitted(() -> {
			lockOrMakeToChange(queue);
			this.jdbc.update(this.sql.deleteFairness, queue);
			List<Object[]> rows = new ArrayList<>();
			rows.add(new Object[] { queue, LimitRow.QUEUE, 1, source });
			fairness.weights().forEach((keys, weight) -> rows.add(new Object[] { queue, keys, weight, source }));
			this.jdbc.batchUpdate(this.sql.insertWeight, rows);
			this.jdbc.update(this.sql.bumpFlow, queue);
			announce(queue);
			return null;
		});
	}

	/** Ends the queue's fair turns; false when it had none. A queue left without limits is claimed as any other again. */
	public boolean removeFairness(String queue) {
		return Boolean.TRUE.equals(this.transactions.inNewReadCommitted(() -> {
			if (lockToChange(queue) == null) {
				return false;
			}
			boolean removed = this.jdbc.update(this.sql.deleteFairness, queue) > 0;
			this.jdbc.update(this.sql.deleteFairKeys, queue);
			dropFlowIfUnused(queue);
			announce(queue);
			return removed;
		}));
	}

	/**
	 * Sets the limit of a queue ({@link LimitRow#QUEUE} as its key pattern) or of its keys
	 * matching a pattern, replacing the one there was.
	 */
	public void put(String queue, String keyPattern, Limit limit, String source) {
		this.transactions.inNewReadCommitted(() -> {
			lockOrMakeToChange(queue);
			RateLimit rate = limit.rate();
			Object[] values = { limit.concurrency(), (rate != null) ? rate.starts() : null,
					(rate != null) ? rate.periodMillis() : null, source };
			int[] types = { Types.INTEGER, Types.INTEGER, Types.BIGINT, Types.VARCHAR, Types.VARCHAR, Types.VARCHAR };
			if (this.jdbc.update(this.sql.updateLimit, concat(values, queue, keyPattern), types) == 0) {
				this.jdbc.update(this.sql.insertLimit, concat(new Object[] { queue, keyPattern }, values),
						new int[] { Types.VARCHAR, Types.VARCHAR, Types.INTEGER, Types.INTEGER, Types.BIGINT,
								Types.VARCHAR });
			}
			this.jdbc.update(this.sql.bumpFlow, queue);
			announce(queue);
			return null;
		});
	}

	/** Locks the queue's flow row for a change, making it first when the queue has none. */
	private void lockOrMakeToChange(String queue) {
		if (lockToChange(queue) == null) {
			try {
				this.jdbc.update(this.sql.insertFlow, queue, firstVersion());
			}
			catch (DuplicateKeyException ex) {
				// Another change made the row first: take its turn after it.
			}
			lockToChange(queue);
		}
	}

	/**
	 * Deletes the queue's flow row (and its windows) when it has neither limits nor fair
	 * turns left, else moves its version on; under the row's lock.
	 */
	private void dropFlowIfUnused(String queue) {
		Integer limits = this.jdbc.queryForObject(this.sql.countLimits, Integer.class, queue);
		Integer weights = this.jdbc.queryForObject(this.sql.countFairness, Integer.class, queue);
		if ((limits == null || limits == 0) && (weights == null || weights == 0)) {
			this.jdbc.update(this.sql.deleteWindows, queue);
			this.jdbc.update(this.sql.deleteFairKeys, queue);
			this.jdbc.update(this.sql.deleteFlow, queue);
		}
		else {
			this.jdbc.update(this.sql.bumpFlow, queue);
		}
	}

	/**
	 * The version of a new flow row: random, not 0, because the row of a queue that loses its
	 * last limit is deleted, and an instance may still hold the limits it read under the old
	 * row's version; counting from 0 again, the new row would soon carry that version, and the
	 * instance would claim under limits that are gone.
	 */
	private static long firstVersion() {
		return ThreadLocalRandom.current().nextLong(1L << 62);
	}

	/**
	 * Removes the limit of a queue ({@link LimitRow#QUEUE}) or of a key pattern; false when
	 * there was none. A queue left without limits is claimed as any other again.
	 */
	public boolean remove(String queue, String keyPattern) {
		return Boolean.TRUE.equals(this.transactions.inNewReadCommitted(() -> {
			if (lockToChange(queue) == null) {
				return false;
			}
			boolean removed = this.jdbc.update(this.sql.deleteLimit, queue, keyPattern) == 1;
			dropFlowIfUnused(queue);
			announce(queue);
			return removed;
		}));
	}

	/**
	 * Keeps these limits, each a queue and a key pattern, declared by this instance for
	 * {@code lifetime} from now (database clock): each one's {@code declared_until} moves to
	 * then, never back (another instance may keep it for longer). Their values stay as they are.
	 */
	public void keepDeclared(Collection<List<String>> limits, Duration lifetime) {
		if (limits.isEmpty()) {
			return;
		}
		long millis = lifetime.toMillis();
		this.jdbc.batchUpdate(this.sql.keepLimitDeclared,
				limits.stream().map((limit) -> new Object[] { millis, limit.get(0), limit.get(1), millis }).toList());
	}

	/**
	 * {@link #keepDeclared} of one limit in a transaction of its own, passing over a row that
	 * another transaction holds (where the database can tell): false then, and the
	 * declaration is kept at the next refresh. For a background pass.
	 */
	public boolean keepDeclaredUnlessHeld(String queue, String keyPattern, Duration lifetime) {
		return Boolean.TRUE.equals(this.transactions.inNewReadCommitted(() -> {
			if (this.sql.lockLimitUnlessHeld != null && this.jdbc
				.queryForList(this.sql.lockLimitUnlessHeld, String.class, queue, keyPattern)
				.isEmpty()) {
				return false;
			}
			long millis = lifetime.toMillis();
			return this.jdbc.update(this.sql.keepLimitDeclared, millis, queue, keyPattern, millis) == 1;
		}));
	}

	/** {@link #keepDeclared} for the fair turns of these queues (on each one's own row). */
	public void keepFairnessDeclared(Collection<String> queues, Duration lifetime) {
		if (queues.isEmpty()) {
			return;
		}
		long millis = lifetime.toMillis();
		this.jdbc.batchUpdate(this.sql.keepFairnessDeclared,
				queues.stream().map((queue) -> new Object[] { millis, queue, millis }).toList());
	}

	/** {@link #keepDeclaredUnlessHeld} for the fair turns of a queue. */
	public boolean keepFairnessDeclaredUnlessHeld(String queue, Duration lifetime) {
		return Boolean.TRUE.equals(this.transactions.inNewReadCommitted(() -> {
			if (this.sql.lockFairnessUnlessHeld != null && this.jdbc
				.queryForList(this.sql.lockFairnessUnlessHeld, String.class, queue)
				.isEmpty()) {
				return false;
			}
			long millis = lifetime.toMillis();
			return this.jdbc.update(this.sql.keepFairnessDeclared, millis, queue, millis) == 1;
		}));
	}

	/**
	 * Removes the limit of a queue or key pattern of {@code source}, only when no live
	 * instance declares it: in one conditional statement, so that it never crosses a
	 * refresh of {@link #keepDeclared}. False, changing nothing, while its
	 * {@code declared_until} is ahead of the database's clock, or when it is gone or of
	 * another source. {@code unlessHeld}: a background pass, which passes over the queue's
	 * flow row when another transaction holds it (where the database can tell), returning
	 * false; else it waits for the row, as {@link #remove} does.
	 */
	public boolean removeUndeclared(String queue, String keyPattern, String source, boolean unlessHeld) {
		return Boolean.TRUE.equals(this.transactions.inNewReadCommitted(() -> {
			if (lock(queue, unlessHeld ? this.sql.lockFlowUnlessHeld : this.sql.lockFlowToChange) == null) {
				return false;
			}
			if (this.jdbc.update(this.sql.deleteLimitUndeclared, queue, keyPattern, source) != 1) {
				return false;
			}
			dropFlowIfUnused(queue);
			announce(queue);
			return true;
		}));
	}

	/**
	 * Ends the queue's fair turns of {@code source}, only when no live instance declares
	 * them; as {@link #removeUndeclared}.
	 */
	public boolean removeFairnessUndeclared(String queue, String source, boolean unlessHeld) {
		return Boolean.TRUE.equals(this.transactions.inNewReadCommitted(() -> {
			if (lock(queue, unlessHeld ? this.sql.lockFlowUnlessHeld : this.sql.lockFlowToChange) == null) {
				return false;
			}
			if (this.jdbc.update(this.sql.deleteFairnessUndeclared, queue, source) != 1) {
				return false;
			}
			this.jdbc.update(this.sql.deleteFairness, queue);
			this.jdbc.update(this.sql.deleteFairKeys, queue);
			dropFlowIfUnused(queue);
			announce(queue);
			return true;
		}));
	}

	/**
	 * Deletes the key windows that no longer count for anything, queue by queue under the
	 * queue's lock; returns how many. Claims do so too, once a minute.
	 */
	public int pruneWindows() {
		int deleted = 0;
		for (QueueLimits limits : allLimits()) {
			deleted += this.transactions.inNewReadCommitted(() -> {
				FlowLock lock = lockToChange(limits.queue());
				return (lock != null) ? deleteExpiredWindows(limits.queue(), lock.now()) : 0;
			});
		}
		return deleted;
	}

	/** Deletes the queue's key windows that count for nothing at {@code now}; under the queue's lock. */
	public int deleteExpiredWindows(String queue, Instant now) {
		return this.jdbc.update(this.sql.deleteExpiredWindows, queue, now.toEpochMilli());
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
				bind(ps, index++, arg);
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
			keys.put(rs.getString("fair_key"), new FairKey(rs.getLong("pass"), window(rs)));
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
				bind(ps, i + 1, args[i]);
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

	/** Binds a parameter, a time as the dialect writes times. */
	private void bind(PreparedStatement ps, int index, Object arg) throws SQLException {
		if (arg instanceof Instant at) {
			this.dialect.setTimestamp(ps, index, at);
		}
		else {
			ps.setObject(index, arg);
		}
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
				bind(ps, i + 1, args.get(i));
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

	/** The stored rate windows of a queue's keys, read without its lock. */
	public Map<String, RateWindow> keyWindows(String queue) {
		Map<String, RateWindow> windows = new HashMap<>();
		this.jdbc.query(this.sql.queueWindows, (rs) -> {
			windows.put(rs.getString("concurrency_key"), window(rs));
		}, queue);
		return windows;
	}

	/** The window of a queue's own rate limit, read without its lock; {@code null} when it has no limits. */
	public @Nullable RateWindow queueWindow(String queue) {
		return this.jdbc.query(this.sql.flowWindow, (rs) -> rs.next() ? window(rs) : null, queue);
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

	/** The database's clock now. */
	public Instant now() {
		Instant now = this.jdbc.query(this.sql.now, (rs) -> rs.next() ? timestamp(rs, "db_now") : null);
		if (now == null) {
			throw new IllegalStateException("The database did not say what time it is");
		}
		return now;
	}

	private Instant timestamp(ResultSet rs, String column) throws SQLException {
		Instant value = this.dialect.getTimestamp(rs, column);
		if (value == null) {
			throw new IllegalStateException("Column " + column + " is null");
		}
		return value;
	}

	/**
	 * How long a claim waits for its queue's flow row when another transaction holds it. The
	 * queue's own transactions that lock it (other claims of the queue, changes of its limits)
	 * hold it for milliseconds; a longer hold is an application's own SQL, or a stuck peer.
	 * MariaDB/MySQL count lock waits in whole seconds: there it is one second.
	 */
	static final Duration FLOW_LOCK_WAIT = Duration.ofMillis(200);

	/**
	 * Locks the queue's flow row for the rest of the current transaction, a claim's, and reads
	 * its version and the database's clock; {@code null} when the queue has no limits. Where
	 * the database has {@code SKIP LOCKED} the claim first passes over a held row (the common,
	 * uncontended case costs nothing more), then waits for it at most {@link #FLOW_LOCK_WAIT};
	 * a longer wait is a {@link FlowBusyException}: the claim takes nothing this time, and the
	 * poll loop, which claims every queue of the instance in turn, goes on with the others.
	 */
	public @Nullable FlowLock lock(String queue) {
		if (this.sql.writeLock != null) {
			return lock(queue, this.sql.lockFlow);
		}
		FlowLock lock = lock(queue, this.sql.lockFlowUnlessHeld);
		if (lock != null) {
			return lock;
		}
		Runnable restore = this.dialect.boundLockWaits(this.jdbc, FLOW_LOCK_WAIT);
		try {
			return lock(queue, this.sql.lockFlow);
		}
		catch (PessimisticLockingFailureException | QueryTimeoutException ex) {
			throw new FlowBusyException(queue, ex);
		}
		finally {
			if (restore != null) {
				restore.run();
			}
		}
	}

	/**
	 * Writes the queue's flow row, which the current transaction locked ({@link #lock}), where a
	 * lock alone does not keep other writers off it (a Galera node's claims from another node's,
	 * {@link Dialect#rowLocksHoldEveryWriter}): a claim that started jobs under the queue's
	 * limits then conflicts with every other such claim that did not see it, at certification
	 * or on the row, and one of the two is tried again on what the other committed. Leaves the
	 * row as it was; elsewhere does nothing.
	 */
	public void writeLocked(String queue) {
		if (this.sql.writeLockedFlow != null) {
			for (String statement : this.sql.writeLockedFlow) {
				this.jdbc.update(statement, queue);
			}
		}
	}

	/** The claim's transaction is not READ COMMITTED: it must be made again, asking for it. */
	public static final class NotReadCommittedException extends RuntimeException {

		public NotReadCommittedException() {
			super("A limited claim needs READ COMMITTED, and the connection's transactions are not");
		}

	}

	/** A claim found its queue's flow row held by another transaction for longer than it waits. */
	static final class FlowBusyException extends RuntimeException {

		FlowBusyException(String queue, RuntimeException cause) {
			super("The flow row of queue '" + queue + "' is held by another transaction", cause);
		}

	}

	/** Locks the queue's flow row as {@link #lock} does, for a change of its limits or windows. */
	private @Nullable FlowLock lockToChange(String queue) {
		return lock(queue, this.sql.lockFlowToChange);
	}

	private @Nullable FlowLock lock(String queue, String statement) {
		if (this.sql.writeLock != null) {
			this.jdbc.update(this.sql.writeLock);
		}
		List<FlowLock> locks = this.jdbc.query(statement, (rs, row) -> new FlowLock(rs.getLong("version"),
				window(rs), timestamp(rs, "db_now"), rs.getBoolean("read_committed")), queue);
		return locks.isEmpty() ? null : locks.get(0);
	}

	/**
	 * Whether a claim's transaction may read before it takes its queue's lock: not where the
	 * lock is the database's one write lock (SQLite), which a transaction must take first (a
	 * transaction that began with a read fails at its first write when another wrote since).
	 */
	public boolean mayReadBeforeTheLock() {
		return this.sql.writeLock == null;
	}

	/** Whether the queue has limits now. */
	public boolean hasLimits(String queue) {
		return !this.jdbc.queryForList(this.sql.flowVersion, Long.class, queue).isEmpty();
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

	/**
	 * The stored rate windows of these keys of a queue (a key without one has no starts
	 * counted); the keys padded to a power of two (repeating one), so that few statement texts
	 * serve every count.
	 */
	public Map<String, RateWindow> windows(String queue, Collection<String> keys) {
		List<Object> args = new ArrayList<>(keys.size() + 1);
		args.add(queue);
		args.addAll(keys);
		int padded = IdChunks.padded(keys.size());
		while (args.size() < padded + 1) {
			args.add(args.get(1));
		}
		Map<String, RateWindow> windows = new HashMap<>();
		this.jdbc.query(this.sql.windowsOf(padded), (rs) -> {
			windows.put(rs.getString("concurrency_key"), window(rs));
		}, args.toArray());
		return windows;
	}

	/**
	 * Writes the windows with a claim's starts, under the queue's lock: the queue's own (when
	 * not {@code null}) and those of keys, inserting those not {@code stored} yet.
	 */
	public void writeWindows(String queue, QueueLimits limits, @Nullable RateWindow queueWindow,
			Map<String, RateWindow> keyWindows, Set<String> stored) {
		if (queueWindow != null) {
			this.jdbc.update(this.sql.updateFlowWindow, queueWindow.start(), queueWindow.starts(),
					queueWindow.previous(), queue);
		}
		List<Object[]> updates = new ArrayList<>();
		List<Object[]> inserts = new ArrayList<>();
		keyWindows.forEach((key, window) -> {
			long period = periodOf(limits, key);
			Object[] row = { window.start(), window.starts(), window.previous(), window.expiresAt(period), queue, key };
			(stored.contains(key) ? updates : inserts).add(row);
		});
		if (this.sql.upsertWindows != null && updates.size() + inserts.size() > 1) {
			upsertWindows(queue, updates, inserts);
			return;
		}
		if (!updates.isEmpty()) {
			this.jdbc.batchUpdate(this.sql.updateWindow, updates);
		}
		if (!inserts.isEmpty()) {
			this.jdbc.batchUpdate(this.sql.insertWindow, inserts);
		}
	}

	/** All windows in one statement ({@link Dialect#upsertRateWindows}), from rows as the batches take them. */
	private void upsertWindows(String queue, List<Object[]> updates, List<Object[]> inserts) {
		List<Object[]> rows = new ArrayList<>(updates);
		rows.addAll(inserts);
		Object[][] columns = new Object[5][rows.size()];
		for (int i = 0; i < rows.size(); i++) {
			Object[] row = rows.get(i);
			columns[0][i] = row[5];
			for (int column = 1; column < 5; column++) {
				columns[column][i] = row[column - 1];
			}
		}
		String[] types = { "text", "bigint", "int4", "int4", "bigint" };
		this.jdbc.execute((Connection connection) -> {
			try (PreparedStatement statement = connection.prepareStatement(this.sql.upsertWindows)) {
				statement.setString(1, queue);
				for (int column = 0; column < 5; column++) {
					statement.setArray(column + 2, connection.createArrayOf(types[column], columns[column]));
				}
				return statement.executeUpdate();
			}
		});
	}

	private static long periodOf(QueueLimits limits, String key) {
		Limit limit = limits.limitOf(key);
		if (limit == null || limit.rate() == null) {
			throw new IllegalStateException("No rate limit for window '" + key + "' of queue " + limits.queue());
		}
		return limit.rate().periodMillis();
	}

	private void announce(String queue) {
		if (this.notifyChannel != null && this.dialect.notifyStatement() != null) {
			this.jdbc.query(this.dialect.notifyStatement(), (rs) -> {
			}, this.notifyChannel, queue);
		}
	}

	private static QueueLimits limitsOf(String queue, List<LimitRow> rows, @Nullable Fairness fairness, long version) {
		Limit own = null;
		List<KeyLimit> keyLimits = new ArrayList<>();
		for (LimitRow row : rows) {
			if (row.keyPattern().equals(LimitRow.QUEUE)) {
				own = row.limit();
			}
			else {
				keyLimits.add(new KeyLimit(row.keyPattern(), row.limit()));
			}
		}
		return new QueueLimits(queue, own, keyLimits, fairness, version);
	}

	/** The fair turns these weight rows give; {@code null} without the queue's own row. */
	private static @Nullable Fairness fairnessOf(List<WeightRow> rows) {
		boolean fair = false;
		Map<String, Integer> weights = new LinkedHashMap<>();
		for (WeightRow row : rows) {
			if (row.keyPattern().equals(LimitRow.QUEUE)) {
				fair = true;
			}
			else {
				weights.put(row.keyPattern(), row.weight());
			}
		}
		return fair ? new Fairness(weights) : null;
	}

	private WeightRow mapWeight(ResultSet rs, int row) throws SQLException {
		return new WeightRow(rs.getString("queue"), rs.getString("key_pattern"), rs.getInt("weight"),
				rs.getString("source"));
	}

	private LimitRow mapLimit(ResultSet rs, int row) throws SQLException {
		int concurrency = rs.getInt("concurrency");
		Integer maxRunning = rs.wasNull() ? null : concurrency;
		int rate = rs.getInt("rate");
		RateLimit rateLimit = rs.wasNull() ? null
				: new RateLimit(rate, Duration.ofMillis(rs.getLong("period_millis")));
		return new LimitRow(rs.getString("queue"), rs.getString("key_pattern"), new Limit(maxRunning, rateLimit),
				rs.getString("source"), rs.getLong("version"));
	}

	private static RateWindow window(ResultSet rs) throws SQLException {
		return new RateWindow(rs.getLong("window_start"), rs.getInt("window_starts"), rs.getInt("previous_starts"));
	}

	private static Object[] concat(Object[] first, Object... second) {
		Object[] all = new Object[first.length + second.length];
		System.arraycopy(first, 0, all, 0, first.length);
		System.arraycopy(second, 0, all, first.length, second.length);
		return all;
	}

	/**
	 * A queue's flow row, locked: its limits' version, the window of its own rate limit, the
	 * database's clock, and whether the
	 * transaction is READ COMMITTED, as a claim needs (each statement reads what the claims
	 * before it committed).
	 */
	public record FlowLock(long version, RateWindow window, Instant now, boolean readCommitted) {
	}

	/** A stored weight of a fair queue's keys ({@link LimitRow#QUEUE}: the queue's own row, which makes it fair). */
	public record WeightRow(String queue, String keyPattern, int weight, String source) {
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
