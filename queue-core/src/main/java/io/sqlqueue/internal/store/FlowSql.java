package io.sqlqueue.internal.store;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;

/**
 * The statements of flow control on its tables ({@code queue_limit}, {@code queue_flow},
 * {@code queue_rate_window}) and the counts it reads from {@code queue_job}, written once
 * from the dialect's pieces. See the V6 migration for what each table holds.
 */
final class FlowSql {

	/** Locks a queue's flow row for a claim and reads its version, its window and the database's clock; parameter: queue. */
	final String lockFlow;

	/**
	 * {@link #lockFlow}, passing over the row when another transaction holds it (where the
	 * database has {@code SKIP LOCKED}; else the same statement).
	 */
	final String lockFlowUnlessHeld;

	/** The same for a change of the queue's limits. */
	final String lockFlowToChange;

	/** Run first where rows cannot be locked by a read (SQLite: takes its one write lock); no parameters. */
	final @Nullable String writeLock;

	final String flowVersion;

	/** Makes a queue's flow row unless it is there (another change made it first); parameters: queue, version. */
	final String insertFlow;

	final String bumpFlow;

	final String deleteFlow;

	/**
	 * Where a row lock does not hold every writer ({@link Dialect#rowLocksHoldEveryWriter}): a
	 * change of the flow row and its undoing, so that the transaction wrote the row (the version
	 * is unchanged when it commits); else {@code null}. A single statement that writes the
	 * values the row has is no write: InnoDB compares the row before and after and skips it.
	 * Parameter of each: queue.
	 */
	final @Nullable List<String> writeLockedFlow;

	final String limitsOfQueue;

	final String allLimits;

	final String insertLimit;

	final String updateLimit;

	final String deleteLimit;

	/**
	 * Keeps a limit declared by this instance: {@code declared_until} moved to now plus the
	 * lifetime (never back); parameters: lifetime in milliseconds, queue, key pattern,
	 * lifetime in milliseconds.
	 */
	final String keepLimitDeclared;

	/** A limit's row, locked, passing over it when another transaction holds it; {@code null} without row locks. */
	final @Nullable String lockLimitUnlessHeld;

	/**
	 * Deletes a limit of a source unless a live instance declares it ({@code declared_until}
	 * ahead); parameters: queue, key pattern, source.
	 */
	final String deleteLimitUndeclared;

	final String countLimits;

	/** Running jobs of a queue per concurrency key (null for none); parameter: queue. */
	final String runningByKey;

	/** Due queued jobs of a queue per concurrency key (null for none); parameter: queue. */
	final String dueByKey;

	final String queueWindows;

	/** Windows of some keys of a queue, by statement per count of keys; see {@link #windowsOf}. */
	private final Map<Integer, String> windowsOf = new ConcurrentHashMap<>();

	/** The queue's own window, unlocked (for counts); parameter: queue. */
	final String flowWindow;

	final String updateFlowWindow;

	final String updateWindow;

	final String insertWindow;

	final String deleteWindows;

	final @Nullable String upsertWindows;

	final String deleteExpiredWindows;

	final String now;

	/** The weights of a fair queue (its own row, key pattern '', makes it fair); parameter: queue. */
	final String fairnessOfQueue;

	final String allFairness;

	final String insertWeight;

	final String deleteFairness;

	/**
	 * Keeps a queue's fair turns declared by this instance, on the queue's own row;
	 * parameters: lifetime in milliseconds, queue, lifetime in milliseconds.
	 */
	final String keepFairnessDeclared;

	/** A queue's own fairness row, locked unless held; {@code null} without row locks. */
	final @Nullable String lockFairnessUnlessHeld;

	/**
	 * Deletes the queue's own fairness row of a source unless a live instance declares its
	 * turns; parameters: queue, source. The other weights follow only when it went.
	 */
	final String deleteFairnessUndeclared;

	final String countFairness;

	/** Every key in a fair queue's turns; parameter: queue. */
	final String fairKeys;

	/** The keys in a fair queue's turns whose turns come first; parameters: queue, count. */
	final String firstFairKeys;

	final String updateFairKey;

	final String insertFairKey;

	/** A key leaves the turns; parameters: queue, key. */
	final String deleteFairKey;

	final String deleteFairKeys;

	private final String windowTable;

	FlowSql(Dialect dialect, @Nullable String schema) {
		String checkedSchema = Names.requireSchema(schema);
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		String limitTable = prefix + "queue_limit";
		String flowTable = prefix + "queue_flow";
		String jobTable = prefix + "queue_job";
		this.windowTable = prefix + "queue_rate_window";
		String now = dialect.now();
		this.lockFlow = dialect.lockFlow(flowTable, true);
		this.lockFlowUnlessHeld = dialect.supports(ClaimMethod.LOCK_THEN_UPDATE) ? this.lockFlow + " SKIP LOCKED"
				: this.lockFlow;
		this.lockFlowToChange = dialect.lockFlow(flowTable, false);
		this.writeLock = dialect.writeLockFirst(jobTable);
		this.flowVersion = "SELECT version FROM %s WHERE queue = ?".formatted(flowTable);
		this.insertFlow = "INSERT INTO %s (queue, version) VALUES (?, ?)%s".formatted(flowTable,
				dialect.insertUnlessPresent("queue"));
		this.bumpFlow = "UPDATE %s SET version = version + 1 WHERE queue = ?".formatted(flowTable);
		this.deleteFlow = "DELETE FROM %s WHERE queue = ?".formatted(flowTable);
		this.writeLockedFlow = dialect.rowLocksHoldEveryWriter() ? null
				: List.of(this.bumpFlow, "UPDATE %s SET version = version - 1 WHERE queue = ?".formatted(flowTable));
		this.limitsOfQueue = """
				SELECT l.*, f.version FROM %s l JOIN %s f ON f.queue = l.queue
				WHERE l.queue = ?""".formatted(limitTable, flowTable);
		this.allLimits = """
				SELECT l.*, f.version FROM %s l JOIN %s f ON f.queue = l.queue
				ORDER BY l.queue, l.key_pattern""".formatted(limitTable, flowTable);
		this.insertLimit = """
				INSERT INTO %s (queue, key_pattern, concurrency, rate, period_millis, source, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, %s, %s)""".formatted(limitTable, now, now);
		this.updateLimit = """
				UPDATE %s SET concurrency = ?, rate = ?, period_millis = ?, source = ?, updated_at = %s
				WHERE queue = ? AND key_pattern = ?""".formatted(limitTable, now);
		this.deleteLimit = "DELETE FROM %s WHERE queue = ? AND key_pattern = ?".formatted(limitTable);
		String nowPlus = dialect.nowPlusMillis();
		boolean rowLocks = dialect.supports(ClaimMethod.LOCK_THEN_UPDATE);
		String undeclared = "(declared_until IS NULL OR declared_until < %s)".formatted(now);
		this.keepLimitDeclared = """
				UPDATE %s SET declared_until = %s
				WHERE queue = ? AND key_pattern = ? AND (declared_until IS NULL OR declared_until < %s)"""
			.formatted(limitTable, nowPlus, nowPlus);
		this.lockLimitUnlessHeld = rowLocks
				? "SELECT queue FROM %s WHERE queue = ? AND key_pattern = ?\nFOR UPDATE SKIP LOCKED".formatted(limitTable)
				: null;
		this.deleteLimitUndeclared = """
				DELETE FROM %s
				WHERE queue = ? AND key_pattern = ? AND source = ? AND %s""".formatted(limitTable, undeclared);
		this.countLimits = "SELECT COUNT(*) FROM %s WHERE queue = ?".formatted(limitTable);
		this.runningByKey = """
				SELECT concurrency_key, COUNT(*) AS jobs FROM %s
				WHERE queue = ? AND status = 'RUNNING'
				GROUP BY concurrency_key""".formatted(jobTable);
		this.dueByKey = """
				SELECT concurrency_key, COUNT(*) AS jobs FROM %s
				WHERE queue = ? AND status = 'QUEUED' AND run_at <= %s
				GROUP BY concurrency_key""".formatted(jobTable, now);
		this.queueWindows = """
				SELECT concurrency_key, window_start, window_starts, previous_starts FROM %s
				WHERE queue = ?""".formatted(this.windowTable);
		this.flowWindow = "SELECT window_start, window_starts, previous_starts FROM %s WHERE queue = ?"
			.formatted(flowTable);
		this.updateFlowWindow = """
				UPDATE %s SET window_start = ?, window_starts = ?, previous_starts = ?
				WHERE queue = ?""".formatted(flowTable);
		this.updateWindow = """
				UPDATE %s SET window_start = ?, window_starts = ?, previous_starts = ?, expires_at = ?
				WHERE queue = ? AND concurrency_key = ?""".formatted(this.windowTable);
		this.insertWindow = """
				INSERT INTO %s (window_start, window_starts, previous_starts, expires_at, queue, concurrency_key)
				VALUES (?, ?, ?, ?, ?, ?)""".formatted(this.windowTable);
		this.deleteWindows = "DELETE FROM %s WHERE queue = ?".formatted(this.windowTable);
		this.upsertWindows = dialect.upsertRateWindows(this.windowTable);
		this.deleteExpiredWindows = "DELETE FROM %s WHERE queue = ? AND expires_at < ?".formatted(this.windowTable);
		this.now = "SELECT %s AS db_now".formatted(now);
		String fairnessTable = prefix + "queue_fairness";
		String fairKeyTable = prefix + "queue_fair_key";
		this.fairnessOfQueue = "SELECT queue, key_pattern, weight, source FROM %s WHERE queue = ?".formatted(fairnessTable);
		this.allFairness = "SELECT queue, key_pattern, weight, source FROM %s ORDER BY queue, key_pattern"
			.formatted(fairnessTable);
		this.insertWeight = """
				INSERT INTO %s (queue, key_pattern, weight, source, created_at, updated_at)
				VALUES (?, ?, ?, ?, %s, %s)""".formatted(fairnessTable, now, now);
		this.deleteFairness = "DELETE FROM %s WHERE queue = ?".formatted(fairnessTable);
		this.keepFairnessDeclared = """
				UPDATE %s SET declared_until = %s
				WHERE queue = ? AND key_pattern = '' AND (declared_until IS NULL OR declared_until < %s)"""
			.formatted(fairnessTable, nowPlus, nowPlus);
		this.lockFairnessUnlessHeld = rowLocks
				? "SELECT queue FROM %s WHERE queue = ? AND key_pattern = ''\nFOR UPDATE SKIP LOCKED".formatted(fairnessTable)
				: null;
		this.deleteFairnessUndeclared = """
				DELETE FROM %s
				WHERE queue = ? AND key_pattern = '' AND source = ? AND %s""".formatted(fairnessTable, undeclared);
		this.countFairness = "SELECT COUNT(*) FROM %s WHERE queue = ?".formatted(fairnessTable);
		this.fairKeys = """
				SELECT fair_key, pass, window_start, window_starts, previous_starts FROM %s
				WHERE queue = ?""".formatted(fairKeyTable);
		this.firstFairKeys = this.fairKeys + "\nORDER BY pass, fair_key\nLIMIT ?";

		this.updateFairKey = """
				UPDATE %s SET pass = ?, window_start = ?, window_starts = ?, previous_starts = ?
				WHERE queue = ? AND fair_key = ?""".formatted(fairKeyTable);
		this.insertFairKey = """
				INSERT INTO %s (pass, window_start, window_starts, previous_starts, queue, fair_key)
				VALUES (?, ?, ?, ?, ?, ?)""".formatted(fairKeyTable);
		this.deleteFairKey = "DELETE FROM %s WHERE queue = ? AND fair_key = ?".formatted(fairKeyTable);
		this.deleteFairKeys = "DELETE FROM %s WHERE queue = ?".formatted(fairKeyTable);
	}

	/**
	 * The stored windows of {@code count} keys of a queue; parameters: queue, keys…. A read of
	 * its own, once per page of candidates, rather than a join on them: while the table had no
	 * statistics, PostgreSQL joined it on the queue alone, reading every window of the queue
	 * again for each candidate (100 candidates of 100 keys: 10,000 rows and 1,200 buffers per
	 * claim, half of the claim's database time).
	 */
	String windowsOf(int count) {
		return this.windowsOf.computeIfAbsent(count, (keys) -> """
				SELECT concurrency_key, window_start, window_starts, previous_starts FROM %s
				WHERE queue = ? AND concurrency_key IN (%s)""".formatted(this.windowTable,
					String.join(", ", Collections.nCopies(keys, "?"))));
	}

}
