package io.sqlqueue.internal.store;

import java.time.Duration;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Flow control's tables, one room per thing they hold, assembled on one template, one set of
 * transactions and one set of statements: the queue's flow row as a lock ({@link #locks()}),
 * the limits and fair turns declared ({@link #declarations()}), the rate windows
 * ({@link #rateWindows()}), a limited queue's jobs as its claim reads and takes them
 * ({@link #limitedJobs()}), and the turns of fair queues' keys ({@link #fairTurns()}). The parts
 * know each other where one needs another (a change of limits takes the lock), never this
 * assembler.
 */
public class FlowStore {

	/** How long a claim waits for its queue's flow row when another transaction holds it: {@link FlowLocks#LOCK_WAIT}. */
	static final Duration FLOW_LOCK_WAIT = FlowLocks.LOCK_WAIT;

	private final FlowLocks locks;

	private final LimitDeclarations declarations;

	private final RateWindows rateWindows;

	private final LimitedJobs limitedJobs;

	private final FairTurnStore fairTurns;

	public FlowStore(DataSource dataSource, Dialect dialect, @Nullable String schema) {
		this(dataSource, dialect, schema, null);
	}

	/**
	 * @param notifyChannel where enqueues are announced ({@link io.sqlqueue.internal.store.postgresql.PostgresNotifications}), to
	 * announce changed limits there too; {@code null} for none
	 */
	public FlowStore(DataSource dataSource, Dialect dialect, @Nullable String schema, @Nullable String notifyChannel) {
		this(StoreContext.on(dataSource, dialect), new JobSql(dialect, schema), schema, notifyChannel);
	}

	/** The flow store of a {@link JobStore}, on its context and statements. */
	FlowStore(StoreContext context, JobSql jobSql, @Nullable String schema, @Nullable String notifyChannel) {
		Dialect dialect = context.dialect();
		JdbcTemplate jdbc = context.jdbc();
		StoreTransactions transactions = context.transactions();
		FlowSql sql = new FlowSql(dialect, schema);
		this.locks = new FlowLocks(dialect, jdbc, sql);
		this.declarations = new LimitDeclarations(dialect, jdbc, sql, this.locks, transactions, notifyChannel);
		this.rateWindows = new RateWindows(jdbc, sql, this.locks, this.declarations, transactions);
		this.limitedJobs = new LimitedJobs(dialect, jdbc, sql, jobSql);
		this.fairTurns = new FairTurnStore(dialect, jdbc, sql, jobSql);
	}

	/** The queues' flow rows, locked by a claim or a change of limits. */
	public FlowLocks locks() {
		return this.locks;
	}

	/** The limits and fair turns of queues: read, set, removed, kept declared. */
	public LimitDeclarations declarations() {
		return this.declarations;
	}

	/** The rate windows of queues and keys. */
	public RateWindows rateWindows() {
		return this.rateWindows;
	}

	/** A limited queue's jobs, as its claim reads and takes them. */
	public LimitedJobs limitedJobs() {
		return this.limitedJobs;
	}

	/** The turns of fair queues' keys, and a fair claim's reads of their jobs. */
	public FairTurnStore fairTurns() {
		return this.fairTurns;
	}

	/** The claim's transaction is not READ COMMITTED: it must be made again, asking for it. */
	public static final class NotReadCommittedException extends RuntimeException {

		public NotReadCommittedException() {
			super("A limited claim needs READ COMMITTED, and the connection's transactions are not");
		}

	}

}
