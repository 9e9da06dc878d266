package io.sqlqueue.internal.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.QueueLimits;

/**
 * The rate windows of limited queues: the starts each queue and key counted in its current
 * and previous window, read by a claim, written with its starts under the queue's lock, and
 * deleted once they count for nothing.
 */
public class RateWindows {

	private final JdbcTemplate jdbc;

	private final FlowSql sql;

	private final FlowLocks locks;

	private final LimitDeclarations declarations;

	private final StoreTransactions transactions;

	RateWindows(JdbcTemplate jdbc, FlowSql sql, FlowLocks locks, LimitDeclarations declarations,
			StoreTransactions transactions) {
		this.jdbc = jdbc;
		this.sql = sql;
		this.locks = locks;
		this.declarations = declarations;
		this.transactions = transactions;
	}

	/**
	 * Deletes the key windows that no longer count for anything, queue by queue under the
	 * queue's lock; returns how many. Claims do so too, once a minute.
	 */
	public int pruneWindows() {
		int deleted = 0;
		for (QueueLimits limits : this.declarations.allLimits()) {
			deleted += this.transactions.inNewReadCommitted(() -> {
				FlowLocks.FlowLock lock = this.locks.lockToChange(limits.queue());
				return (lock != null) ? deleteExpiredWindows(limits.queue(), lock.now()) : 0;
			});
		}
		return deleted;
	}

	/** Deletes the queue's key windows that count for nothing at {@code now}; under the queue's lock. */
	public int deleteExpiredWindows(String queue, Instant now) {
		return this.jdbc.update(this.sql.deleteExpiredWindows, queue, now.toEpochMilli());
	}

	/** The stored rate windows of a queue's keys, read without its lock. */
	public Map<String, RateWindow> keyWindows(String queue) {
		Map<String, RateWindow> windows = new HashMap<>();
		this.jdbc.query(this.sql.queueWindows, (rs) -> {
			windows.put(rs.getString("concurrency_key"), RateWindow.read(rs));
		}, queue);
		return windows;
	}

	/** The window of a queue's own rate limit, read without its lock; {@code null} when it has no limits. */
	public @Nullable RateWindow queueWindow(String queue) {
		return this.jdbc.query(this.sql.flowWindow, (rs) -> rs.next() ? RateWindow.read(rs) : null, queue);
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
			windows.put(rs.getString("concurrency_key"), RateWindow.read(rs));
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

}
