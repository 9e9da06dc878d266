package io.sqlqueue.internal.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.flow.Fairness;
import io.sqlqueue.flow.KeyLimit;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.QueueLimits;
import io.sqlqueue.flow.RateLimit;

/**
 * The limits and fair turns of queues as stored: read, set, removed, and kept declared by the
 * instances that declare them. A change of a queue's limits locks the queue's flow row
 * ({@link FlowLocks}), so it falls between two claims, and moves the row's version, so every
 * instance reads the new limits at its next claim; on PostgreSQL it also wakes every instance's
 * Manager (as an enqueue does), so that a raised or removed limit frees the waiting jobs at once.
 */
public class LimitDeclarations {

	private final Dialect dialect;

	private final JdbcTemplate jdbc;

	private final FlowSql sql;

	private final FlowLocks locks;

	/** A change of limits commits at once, apart from any transaction of the caller: {@link StoreTransactions#inNewReadCommitted}. */
	private final StoreTransactions transactions;

	private final @Nullable String notifyChannel;

	/**
	 * @param notifyChannel where enqueues are announced ({@link io.sqlqueue.internal.store.postgresql.PostgresNotifications}), to
	 * announce changed limits there too; {@code null} for none
	 */
	LimitDeclarations(Dialect dialect, JdbcTemplate jdbc, FlowSql sql, FlowLocks locks, StoreTransactions transactions,
			@Nullable String notifyChannel) {
		this.dialect = dialect;
		this.jdbc = jdbc;
		this.sql = sql;
		this.locks = locks;
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
			if (this.locks.lockToChange(queue) == null) {
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
		if (this.locks.lockToChange(queue) == null) {
			try {
				this.jdbc.update(this.sql.insertFlow, queue, firstVersion());
			}
			catch (DuplicateKeyException ex) {
				// Another change made the row first: take its turn after it.
			}
			this.locks.lockToChange(queue);
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
			if (this.locks.lockToChange(queue) == null) {
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
			if (this.locks.lockToChange(queue, unlessHeld) == null) {
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
			if (this.locks.lockToChange(queue, unlessHeld) == null) {
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

	private static Object[] concat(Object[] first, Object... second) {
		Object[] all = new Object[first.length + second.length];
		System.arraycopy(first, 0, all, 0, first.length);
		System.arraycopy(second, 0, all, first.length, second.length);
		return all;
	}

}
