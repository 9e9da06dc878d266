package io.sqlqueue.internal.store;

import java.sql.Types;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.SqlParameterValue;

import io.sqlqueue.admin.AuditEntry;

/**
 * The audit log of operator actions ({@code queue_audit}). An entry is written in the
 * current transaction when there is one, so that an action and its entry commit together;
 * {@link #inTransaction} gives an action one to share. Off
 * ({@code sqlqueue.history.audit=false}) for a schema without the table: nothing is written
 * and the log reads empty.
 */
public final class AuditLog {

	private final JdbcTemplate jdbc;

	private final Dialect dialect;

	private final StoreTransactions transactions;

	private final AuditSql sql;

	private volatile boolean enabled = true;

	AuditLog(StoreContext context, @Nullable String schema) {
		this.jdbc = context.jdbc();
		this.transactions = context.transactions();
		this.dialect = context.dialect();
		this.sql = new AuditSql(this.dialect, schema);
	}

	/** Whether actions are logged (and read). Set while the store is wired. */
	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	/**
	 * Runs an action and the writing of its entry in one transaction: the caller's when it has
	 * one on the queue's data source, else a new one, READ COMMITTED where the database has
	 * row locks, as the ends of jobs it may write settle their dependents under. On SQLite it
	 * takes the write lock first: an action reads before it writes, and a transaction that
	 * began with a read fails at once at its first write when another wrote meanwhile. In a
	 * caller's transaction too: one that read before would fail at the action's write all the
	 * same, and one that wrote before holds the lock already.
	 */
	public <T> T inTransaction(Supplier<T> action) {
		if (this.sql.writeLockFirst == null) {
			return this.transactions.inCallerOrNewForSettling(action);
		}
		return this.transactions.inCallerOrNewForSettling(() -> {
			this.jdbc.update(this.sql.writeLockFirst);
			return action.get();
		});
	}

	/** Writes one entry, in the current transaction if there is one. */
	public void record(@Nullable String actor, String action, @Nullable String queue, @Nullable Long jobId,
			@Nullable String schedule, int jobs, @Nullable String detail) {
		if (!this.enabled) {
			return;
		}
		this.jdbc.update(this.sql.insert, new SqlParameterValue(Types.VARCHAR, actor), action,
				new SqlParameterValue(Types.VARCHAR, queue), new SqlParameterValue(Types.BIGINT, jobId),
				new SqlParameterValue(Types.VARCHAR, schedule), jobs, new SqlParameterValue(Types.VARCHAR, detail));
	}

	/** The newest {@code limit} entries, newest first. */
	public List<AuditEntry> newest(int limit) {
		if (!this.enabled) {
			return List.of();
		}
		return this.jdbc.query(this.sql.newest, (rs, row) -> {
			long jobId = rs.getLong("job_id");
			Long job = rs.wasNull() ? null : jobId;
			return new AuditEntry(rs.getLong("id"), Objects.requireNonNull(this.dialect.getTimestamp(rs, "acted_at")),
					rs.getString("actor"), rs.getString("action"), rs.getString("queue"), job, rs.getString("schedule"),
					rs.getInt("jobs"), rs.getString("detail"));
		}, limit);
	}

	/** Deletes the entries older than {@code retention}; returns how many. */
	public int prune(Duration retention) {
		if (!this.enabled) {
			return 0;
		}
		return this.transactions.inNewReadCommitted(() -> this.jdbc.update(this.sql.deleteOlder, -retention.toMillis()));
	}

}
