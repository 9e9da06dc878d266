package io.sqlqueue.internal.store;

import java.time.Duration;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The store's transaction policy, in one place: every transaction a store verb runs in is
 * one of these, by name. A caller's transaction is joined implicitly (Spring's
 * {@code DataSourceUtils}, through the one transaction manager of the queue's data source)
 * where a verb says so ({@code inCaller…}); the queue's own writes never join it
 * ({@code inNew…}).
 * <p>
 * READ COMMITTED wherever rows are locked before they are written: under REPEATABLE READ,
 * MySQL's locking reads take gap locks that make concurrent claims, enqueues and settling
 * deadlock (see MariaDbDialect). SQLite, which locks the whole file, has no such level (and no
 * need of it).
 */
final class StoreTransactions {

	/**
	 * How long a sweep (the reaper's, the deadline sweep's) or a completion flush waits for a
	 * row that another transaction holds while it settles what a job's end settles (its
	 * dependents, its batch, a batch's callback), where the database can bound it
	 * ({@link Dialect#boundLockWaits}): then that job is left for the next pass or flush,
	 * and the others are ended meanwhile. The queue's own writes of an attempt's end other
	 * than success wait as long, then fail as a transient error and are tried again. See
	 * docs/locking.md.
	 */
	static final Duration OWN_LOCK_WAIT = Duration.ofSeconds(1);

	/** The caller's, else a new one, at the connection's own isolation. */
	private final TransactionTemplate callerOrNew;

	/** The caller's, else a new one, READ COMMITTED. */
	private final TransactionTemplate callerOrNewReadCommitted;

	/** The caller's, else a new one, READ COMMITTED where the database has row locks. */
	private final TransactionTemplate callerOrNewForSettling;

	/** A savepoint inside the caller's transaction, so that a failure there leaves it usable. */
	private final TransactionTemplate savepoint;

	/** Never the caller's: a new one, at the connection's own isolation. */
	private final TransactionTemplate newTransaction;

	/** Never the caller's: a new one, READ COMMITTED. */
	private final TransactionTemplate newReadCommitted;

	/** Never the caller's: a new one, READ COMMITTED where the database has row locks. */
	private final TransactionTemplate newForSettling;

	/** Reads only: the caller's, else a new read-only one. */
	private final TransactionTemplate readOnly;

	/** None: the caller's suspended, so that what runs inside starts transactions of its own. */
	private final TransactionTemplate outsideCaller;

	private final DataSource dataSource;

	private final Dialect dialect;

	private final boolean rowLocks;

	/**
	 * The transaction of a limited claim: READ COMMITTED, asked for, or the connection's own
	 * where the dialect checks it in the claim's first statement
	 * ({@link Dialect#checksIsolationInFlowLock}).
	 */
	private volatile TransactionTemplate limitedClaim;

	StoreTransactions(DataSource dataSource, Dialect dialect) {
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.rowLocks = dialect.supports(ClaimMethod.LOCK_THEN_UPDATE);
		DataSourceTransactionManager manager = new DataSourceTransactionManager(dataSource);
		this.callerOrNew = template(manager, TransactionDefinition.PROPAGATION_REQUIRED, null);
		this.callerOrNewReadCommitted = template(manager, TransactionDefinition.PROPAGATION_REQUIRED,
				TransactionDefinition.ISOLATION_READ_COMMITTED);
		this.savepoint = template(manager, TransactionDefinition.PROPAGATION_NESTED, null);
		this.newTransaction = template(manager, TransactionDefinition.PROPAGATION_REQUIRES_NEW, null);
		this.newReadCommitted = template(manager, TransactionDefinition.PROPAGATION_REQUIRES_NEW,
				TransactionDefinition.ISOLATION_READ_COMMITTED);
		this.callerOrNewForSettling = this.rowLocks ? this.callerOrNewReadCommitted : this.callerOrNew;
		this.newForSettling = this.rowLocks ? this.newReadCommitted : this.newTransaction;
		this.readOnly = template(manager, TransactionDefinition.PROPAGATION_REQUIRED, null);
		this.readOnly.setReadOnly(true);
		this.outsideCaller = template(manager, TransactionDefinition.PROPAGATION_NOT_SUPPORTED, null);
		this.limitedClaim = dialect.checksIsolationInFlowLock() ? this.callerOrNew : this.callerOrNewReadCommitted;
	}

	private static TransactionTemplate template(DataSourceTransactionManager manager, int propagation,
			Integer isolation) {
		TransactionTemplate template = new TransactionTemplate(manager);
		template.setPropagationBehavior(propagation);
		if (isolation != null) {
			template.setIsolationLevel(isolation);
		}
		return template;
	}

	/**
	 * A transaction of the queue's own: run again at once when it loses a race to another
	 * transaction ({@link LostRaces}), as nothing of it was written.
	 */
	private static <T> T owned(TransactionTemplate template, Supplier<T> work) {
		return LostRaces.tryAgainWhenLost(() -> template.execute((status) -> work.get()));
	}

	/**
	 * As {@link #owned} when the caller has no transaction; in the caller's a lost race rolled
	 * back all the caller did too, so it is the caller's to see (at its commit, as a rule).
	 */
	private <T> T ownedUnlessCallers(TransactionTemplate template, Supplier<T> work) {
		return callerHasOne() ? template.execute((status) -> work.get()) : owned(template, work);
	}

	/** Whether the calling thread has a transaction on the queue's data source (which verbs then join). */
	boolean callerHasOne() {
		return TransactionSynchronizationManager.hasResource(this.dataSource);
	}

	/** Whether the calling thread is inside any transaction. */
	static boolean anyActive() {
		return TransactionSynchronizationManager.isActualTransactionActive();
	}

	/** Whether the database has row locks ({@code SELECT … FOR UPDATE SKIP LOCKED}); SQLite has not. */
	boolean rowLocks() {
		return this.rowLocks;
	}

	/** The caller's transaction, else a new one. */
	<T> T inCallerOrNew(Supplier<T> work) {
		return ownedUnlessCallers(this.callerOrNew, work);
	}

	/** The caller's transaction, else a new READ COMMITTED one: a claim, a prune, a schedule's take. */
	<T> T inCallerOrNewReadCommitted(Supplier<T> work) {
		return ownedUnlessCallers(this.callerOrNewReadCommitted, work);
	}

	/**
	 * The write of a job's end and what it settles, or of jobs with their links: the caller's
	 * transaction, else a new one; READ COMMITTED where the database has row locks, so that
	 * MySQL's locking reads of edges take no gap locks, which would make settling and enqueues of
	 * new dependents deadlock.
	 */
	<T> T inCallerOrNewForSettling(Supplier<T> work) {
		return ownedUnlessCallers(this.callerOrNewForSettling, work);
	}

	/** A savepoint inside the caller's transaction: all or nothing there, and the transaction stays usable. */
	<T> T inSavepoint(Supplier<T> work) {
		return this.savepoint.execute((status) -> work.get());
	}

	/** Runs {@code work} with the caller's transaction, if any, suspended until it returns. */
	<T> T outsideCaller(Supplier<T> work) {
		return this.outsideCaller.execute((status) -> work.get());
	}

	/** A new transaction, never the caller's: the queue's own writes, even inside a handler's transaction. */
	<T> T inNewTransaction(Supplier<T> work) {
		return owned(this.newTransaction, work);
	}

	/**
	 * A job's durable progress that must outlive any transaction the queue does not own (the
	 * records of steps, sleeps and waits; a transactional step's writes with its record): a new
	 * transaction, the caller's suspended meanwhile, so that neither a rollback nor a commit of
	 * the caller's changes what it wrote. With a caller's transaction that takes a second
	 * connection of the pool while the caller's waits.
	 * <p>
	 * SQLite has one writer at a time: a caller's transaction that wrote holds the write lock
	 * until it ends, so a second connection's write would wait for it up to the busy timeout and
	 * fail. With a caller's transaction on the queue's data source that is refused at once.
	 * @throws IllegalStateException on SQLite, within a transaction on the queue's data source
	 */
	<T> T inNewApartFromCaller(Supplier<T> work) {
		if (!this.rowLocks && callerHasOne()) {
			throw new IllegalStateException("On SQLite (one writer at a time) the records of durable steps, sleeps "
					+ "and waits for signals are not written while the handler runs in a transaction on the queue's "
					+ "data source (a Spring @Transactional method or TransactionTemplate): they must outlive that "
					+ "transaction, so they are written in one of their own, which would wait for that transaction's "
					+ "write lock. Run the handler outside a transaction, and its database work in transactional "
					+ "steps (docs/durable-steps.md)");
		}
		return inNewTransaction(work);
	}

	/** A new READ COMMITTED transaction, never the caller's: a sweep, a change of limits, a reset. */
	<T> T inNewReadCommitted(Supplier<T> work) {
		return owned(this.newReadCommitted, work);
	}

	/** As {@link #inCallerOrNewForSettling}, never the caller's: a completion flush's settling. */
	<T> T inNewForSettling(Supplier<T> work) {
		return owned(this.newForSettling, work);
	}

	/**
	 * A completion flush of more than one statement: never the caller's, and READ COMMITTED
	 * where it locks rows before it writes them.
	 */
	<T> T inNewForFlush(Supplier<T> work) {
		return this.rowLocks ? inNewReadCommitted(work) : inNewTransaction(work);
	}

	/**
	 * The heartbeat's: never the caller's, and READ COMMITTED where it locks rows before it
	 * writes them ({@code lockFirst}); where its one statement serves, the connection's own.
	 */
	<T> T inNewForLeases(boolean lockFirst, Supplier<T> work) {
		return (lockFirst && this.rowLocks) ? inNewReadCommitted(work) : inNewTransaction(work);
	}

	/** Reads only: the caller's transaction, else a new read-only one. */
	<T> T readOnly(Supplier<T> work) {
		return this.readOnly.execute((status) -> work.get());
	}

	/** The transaction of a limited claim (see {@link #limitedClaimsAskForReadCommitted}). */
	<T> T inLimitedClaim(Supplier<T> work) {
		return ownedUnlessCallers(this.limitedClaim, work);
	}

	/**
	 * From now on a limited claim asks for READ COMMITTED: its first statement found the
	 * connection's own isolation was not.
	 */
	void limitedClaimsAskForReadCommitted() {
		this.limitedClaim = this.callerOrNewReadCommitted;
	}

	/**
	 * A new READ COMMITTED transaction whose waits for a row another transaction holds last at
	 * most {@code bound}, then fail as a {@code CannotAcquireLockException}. Only where the
	 * database has row locks.
	 */
	<T> T inNewBoundedLockWait(JdbcOperations jdbc, Duration bound, Supplier<T> work) {
		return inNewReadCommitted(() -> withBoundedLockWaits(jdbc, bound, work));
	}

	/**
	 * Runs {@code work} in the current transaction waiting at most {@code bound} for any row
	 * lock, where the database can bound it ({@link Dialect#boundLockWaits}).
	 */
	<T> T withBoundedLockWaits(JdbcOperations jdbc, Duration bound, Supplier<T> work) {
		Runnable restore = this.dialect.boundLockWaits(jdbc, bound);
		try {
			return work.get();
		}
		finally {
			if (restore != null) {
				restore.run();
			}
		}
	}

}
