package io.sqlqueue.internal.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A queue's flow row as a lock: the row every transaction that counts against the queue's
 * limits locks first (a limited claim, a change of limits or windows), which also says the
 * limits' version, the queue's own rate window and the database's clock. A row lock where the
 * database has them; SQLite's one write lock, taken first, where it has not.
 */
public class FlowLocks {

	private final Dialect dialect;

	private final JdbcTemplate jdbc;

	private final FlowSql sql;

	FlowLocks(Dialect dialect, JdbcTemplate jdbc, FlowSql sql) {
		this.dialect = dialect;
		this.jdbc = jdbc;
		this.sql = sql;
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
	static final Duration LOCK_WAIT = Duration.ofMillis(200);

	/**
	 * Locks the queue's flow row for the rest of the current transaction, a claim's, and reads
	 * its version and the database's clock; {@code null} when the queue has no limits. Where
	 * the database has {@code SKIP LOCKED} the claim first passes over a held row (the common,
	 * uncontended case costs nothing more), then waits for it at most {@link #LOCK_WAIT};
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
		Runnable restore = this.dialect.boundLockWaits(this.jdbc, LOCK_WAIT);
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

	/** Locks the queue's flow row as {@link #lock} does, for a change of its limits or windows. */
	@Nullable FlowLock lockToChange(String queue) {
		return lock(queue, this.sql.lockFlowToChange);
	}

	private @Nullable FlowLock lock(String queue, String statement) {
		if (this.sql.writeLock != null) {
			this.jdbc.update(this.sql.writeLock);
		}
		List<FlowLock> locks = this.jdbc.query(statement, (rs, row) -> new FlowLock(rs.getLong("version"),
				RateWindow.read(rs), timestamp(rs, "db_now"), rs.getBoolean("read_committed")), queue);
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

	/**
	 * Locks the queue's flow row for a change of its limits by a background pass,
	 * which passes over a row another transaction holds (where the database can tell) when
	 * {@code unlessHeld}; else as {@link #lockToChange}.
	 */
	@Nullable FlowLock lockToChange(String queue, boolean unlessHeld) {
		return lock(queue, unlessHeld ? this.sql.lockFlowUnlessHeld : this.sql.lockFlowToChange);
	}

	/**
	 * A queue's flow row, locked: its limits' version, the window of its own rate limit, the
	 * database's clock, and whether the
	 * transaction is READ COMMITTED, as a claim needs (each statement reads what the claims
	 * before it committed).
	 */
	public record FlowLock(long version, RateWindow window, Instant now, boolean readCommitted) {
	}

}
