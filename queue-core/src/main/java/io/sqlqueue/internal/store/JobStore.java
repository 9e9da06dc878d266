package io.sqlqueue.internal.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.concurrent.ThreadLocalRandom;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.ParameterizedPreparedStatementSetter;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.sqlqueue.DuplicateJobException;
import io.sqlqueue.ExpiredJob;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.ReapedJob;

/**
 * The queue's verbs as SQL: the one seam between the queue and the database. Each method runs
 * in the caller's transaction when there is one (so an enqueue commits with the caller),
 * else in its own short one. A claim never leaves a transaction open. Its larger verb families
 * live beside it: {@link JobInserts}, {@link JobClaims}, {@link FlowClaim} and
 * {@link WorkflowStore}; this class chooses the transaction and calls them.
 */
public class JobStore {

	private static final Logger logger = LoggerFactory.getLogger(JobStore.class);

	/** Claims made in a row when each loses a race for a group's turn (see {@link #claim}). */
	private static final int GROUP_RACE_TRIES = 5;

	/** How often {@link #complete} tries again a success whose row another transaction holds. */
	private static final Duration HELD_RETRY = Duration.ofMillis(100);

	static final String LEASE_EXPIRED = "Lease expired before the attempt finished "
			+ "(the worker crashed, hung, or lost its database connection)";

	/**
	 * How long a sweep (the reaper's, the deadline sweep's) or a completion flush waits for a
	 * row that another transaction holds while it settles what a job's end settles (its
	 * dependents, its batch, a batch's callback), where the database can bound it
	 * ({@link Dialect#boundLockWaits}): then that job is left for the next pass or flush,
	 * and the others are ended meanwhile. The queue's own writes of an attempt's end other
	 * than success ({@link #attemptEnd}) wait as long, then fail as a transient error and are
	 * tried again. See docs/locking.md.
	 */
	public static final Duration OWN_LOCK_WAIT = Duration.ofSeconds(1);

	/** The reason a job cancelled while it ran gives in its last error. */
	public static final String CANCELLED_WHILE_RUNNING = "Cancelled while running, on request";

	private final Dialect dialect;

	private final ClaimMethod claimMethod;

	private final JobSql sql;

	private final JdbcTemplate jdbc;

	private final DataSource dataSource;

	private final @Nullable String notifyChannel;

	private final TransactionTemplate transaction;

	private final TransactionTemplate claimTransaction;

	/** The queue's own writes (completions, leases), even when called inside a handler's transaction. */
	private final TransactionTemplate ownTransaction;

	/** A savepoint inside the caller's transaction, so a batch enqueue is all or nothing there too. */
	private final TransactionTemplate savepoint;

	private final JobInserts inserts;

	private final JobClaims claims;

	private final FlowClaim flowClaim;

	/**
	 * The transaction of a limited claim: READ COMMITTED, asked for, or the connection's own
	 * where the dialect checks it in the claim's first statement ({@link Dialect#checksIsolationInFlowLock}).
	 */
	private volatile TransactionTemplate limitedTransaction;

	private final WorkflowStore workflows;

	private final JobLeases leases;

	/**
	 * The heartbeat's: never joining the caller's, and READ COMMITTED where it locks rows
	 * before it writes them (where its one statement serves, the connection's own).
	 */
	private final TransactionTemplate leaseTransaction;

	/**
	 * A sweep's: never joining the caller's, and READ COMMITTED, where the sweep locks the
	 * rows it ends first ({@link #sweep}).
	 */
	private final TransactionTemplate sweepTransaction;

	/**
	 * The write of a job's end and what it settles, or of jobs with their links, joining the
	 * caller's transaction when there is one; READ COMMITTED, so that MySQL's locking reads of
	 * edges take no gap locks, which would make settling and enqueues of new dependents
	 * deadlock (as claims and enqueues would, see MariaDbDialect).
	 */
	private final TransactionTemplate workflowTransaction;

	/** The same, never joining the caller's: for completion flushes, as {@link #ownTransaction}. */
	private final TransactionTemplate ownWorkflowTransaction;

	/**
	 * A completion flush's, where it is more than one statement: never joining the caller's,
	 * and READ COMMITTED where it locks rows before it writes them ({@link #completePlain}).
	 */
	private final TransactionTemplate flushTransaction;

	private final List<SettleListener> settleListeners = new CopyOnWriteArrayList<>();

	public JobStore(DataSource dataSource, Dialect dialect, @Nullable String schema) {
		this(dataSource, dialect, schema, dialect.claimMethod());
	}

	public JobStore(DataSource dataSource, Dialect dialect, @Nullable String schema, ClaimMethod claimMethod) {
		this(dataSource, dialect, schema, claimMethod, null);
	}

	/**
	 * @param notifyChannel where to announce enqueues ({@link PostgresNotifications}), or
	 * {@code null} for none; only on a database with a {@link Dialect#notifyStatement()}
	 */
	public JobStore(DataSource dataSource, Dialect dialect, @Nullable String schema, ClaimMethod claimMethod,
			@Nullable String notifyChannel) {
		if (notifyChannel != null && dialect.notifyStatement() == null) {
			throw new IllegalArgumentException(dialect + " has no notifications");
		}
		this.notifyChannel = notifyChannel;
		if (!dialect.supports(claimMethod)) {
			throw new IllegalArgumentException(dialect + " cannot claim with " + claimMethod);
		}
		this.dialect = dialect;
		this.claimMethod = claimMethod;
		this.sql = new JobSql(dialect, schema);
		this.dataSource = dataSource;
		this.jdbc = new JdbcTemplate(dataSource);
		this.jdbc.setExceptionTranslator(dialect.exceptionTranslator(this.jdbc.getExceptionTranslator()));
		DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(dataSource);
		this.transaction = new TransactionTemplate(transactionManager);
		// Under REPEATABLE READ, MySQL's locking reads take gap locks that make concurrent claims and
		// enqueues deadlock (see MariaDbDialect).
		this.claimTransaction = new TransactionTemplate(transactionManager);
		this.claimTransaction.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
		this.ownTransaction = new TransactionTemplate(transactionManager);
		this.ownTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.savepoint = new TransactionTemplate(transactionManager);
		this.savepoint.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
		this.inserts = new JobInserts(this.jdbc, this.sql, dialect, notifyChannel);
		this.claims = new JobClaims(this.jdbc, this.sql, dialect, claimMethod, this.claimTransaction);
		this.flowClaim = new FlowClaim(this.jdbc, this.sql, dialect, new FlowStore(dataSource, dialect, schema));
		this.limitedTransaction = dialect.checksIsolationInFlowLock() ? new TransactionTemplate(transactionManager)
				: this.claimTransaction;
		this.workflows = new WorkflowStore(this.jdbc, dialect, schema);
		this.leases = new JobLeases(this.jdbc, this.sql, dialect);
		if (this.sql.extendLeases == null && dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)) {
			this.leaseTransaction = new TransactionTemplate(transactionManager);
			this.leaseTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
			this.leaseTransaction.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
		}
		else {
			this.leaseTransaction = this.ownTransaction;
		}
		this.sweepTransaction = new TransactionTemplate(transactionManager);
		this.sweepTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.sweepTransaction.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
		this.workflowTransaction = new TransactionTemplate(transactionManager);
		this.ownWorkflowTransaction = new TransactionTemplate(transactionManager);
		this.ownWorkflowTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		if (dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)) {
			// SQLite, which locks the whole file, has no such level (and no need of it).
			this.workflowTransaction.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
			this.ownWorkflowTransaction.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
		}
		this.flushTransaction = dialect.supports(ClaimMethod.LOCK_THEN_UPDATE) ? this.sweepTransaction
				: this.ownTransaction;
	}

	/** Workflows: what links jobs (dependencies, batches), and where a job stands in one. */
	public WorkflowStore workflows() {
		return this.workflows;
	}

	/** Told what settling jobs' ends did, after it commits. */
	public void addSettleListener(SettleListener listener) {
		this.settleListeners.add(listener);
	}

	public void removeSettleListener(SettleListener listener) {
		this.settleListeners.remove(listener);
	}

	public Dialect dialect() {
		return this.dialect;
	}

	public ClaimMethod claimMethod() {
		return this.claimMethod;
	}

	/**
	 * Inserts the jobs and returns their ids, in order, in the caller's transaction when there
	 * is one. All or nothing: a duplicate unique key throws {@link DuplicateJobException} and
	 * writes none of them, and the caller's transaction stays usable.
	 */
	public List<Long> insert(List<NewJob> jobs) {
		if (jobs.isEmpty()) {
			return List.of();
		}
		if (TransactionSynchronizationManager.hasResource(this.dataSource)) {
			// One row needs no savepoint: its one statement is atomic, and a duplicate inserts
			// nothing. A template joining the caller's transaction would mark it rollback-only.
			return (jobs.size() == 1) ? this.inserts.insert(jobs)
					: this.savepoint.execute((status) -> this.inserts.insert(jobs));
		}
		return this.transaction.execute((status) -> this.inserts.insert(jobs));
	}

	/**
	 * Inserts jobs with their links (dependencies, a batch) in the caller's transaction when
	 * there is one, all or nothing, as {@link #insert(List)} does; the jobs they run after are
	 * checked before anything is written.
	 * @throws io.sqlqueue.InvalidJobException for a job to run after that does not exist, or
	 * has ended in a way that would cancel the new job at once
	 */
	public LinkedIds insert(LinkedJobs jobs) {
		if (TransactionSynchronizationManager.hasResource(this.dataSource)) {
			return this.savepoint.execute((status) -> this.workflows.insert(jobs, this.inserts::insert));
		}
		return this.workflowTransaction.execute((status) -> this.workflows.insert(jobs, this.inserts::insert));
	}

	/**
	 * Claims due jobs for the request's owner; the result is in the order they should run.
	 * <p>
	 * At most one job of a group runs at a time, and the database holds that line: a unique
	 * index on the group key of {@code RUNNING} jobs. The claim's own condition (no job of the
	 * group running, none older waiting) cannot see a claim that has not committed yet, so
	 * two claims may pick two jobs of one group; the index then makes the later one wait for
	 * the earlier and fail. That claim is simply made again: its new snapshot sees the group's
	 * running job and leaves the group alone.
	 */
	public List<JobRecord> claim(ClaimRequest request) {
		return claimJobs(request).jobs();
	}

	/**
	 * Claims as {@link #claim} does, and says what held due jobs back when the queue has
	 * limits (README "Flow control"). A queue with limits is claimed under them
	 * ({@link FlowClaim}); a claim without limits leaves a queue alone while it has them, so
	 * an instance that has not heard of new limits yet finds nothing, looks, and claims under
	 * them.
	 */
	public ClaimResult claimJobs(ClaimRequest request) {
		for (int tries = 1;; tries++) {
			long token = ThreadLocalRandom.current().nextLong();
			try {
				ClaimResult limited = this.flowClaim.isLimited(request.queue()) ? claimLimited(request, token) : null;
				if (limited != null) {
					return limited;
				}
				List<JobRecord> jobs = this.claims.claim(request, token);
				if (jobs.isEmpty() && this.flowClaim.checkLimited(request.queue())) {
					limited = claimLimited(request, token);
				}
				return (limited != null) ? limited : ClaimResult.of(jobs);
			}
			catch (DuplicateKeyException ex) {
				if (tries == GROUP_RACE_TRIES) {
					logger.debug("Claim lost {} races for a group's turn in a row; claiming again later", tries, ex);
					return ClaimResult.NONE;
				}
			}
		}
	}

	private @Nullable ClaimResult claimLimited(ClaimRequest request, long token) {
		try {
			return this.limitedTransaction.execute((status) -> this.flowClaim.claim(request, token));
		}
		catch (FlowStore.FlowBusyException ex) {
			logger.debug("Claim of queue '{}' takes nothing this time; trying again in {}", request.queue(),
					FLOW_BUSY_RETRY, ex);
			return new ClaimResult(List.of(), true, FLOW_BUSY_RETRY, false);
		}
		catch (FlowClaim.NotReadCommittedException ex) {
			logger.info("The connections' transactions are not READ COMMITTED: limited claims ask for it from now on");
			this.limitedTransaction = this.claimTransaction;
			return this.claimTransaction.execute((status) -> this.flowClaim.claim(request, token));
		}
	}

	/**
	 * Marks the jobs {@code SUCCEEDED} as {@link #completeUnlessHeld} does, and writes those
	 * it passes over again every {@link #HELD_RETRY} until it can: for tools that run jobs
	 * on the calling thread ({@code JobRunner}), which wait for their write as the statement
	 * once waited for the row. Returns, per completion, whether its lease still held (false
	 * for those still held when the thread is interrupted).
	 */
	public boolean[] complete(List<Completion> completions) {
		Set<Lease> recorded = new HashSet<>();
		List<Completion> left = completions;
		while (!left.isEmpty()) {
			CompletedJobs done = completeUnlessHeld(left);
			recorded.addAll(done.recorded());
			left = left.stream().filter((completion) -> done.passedOver().contains(completion.lease())).toList();
			if (!left.isEmpty()) {
				try {
					Thread.sleep(HELD_RETRY.toMillis());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					break;
				}
			}
		}
		boolean[] held = new boolean[completions.size()];
		for (int i = 0; i < held.length; i++) {
			held[i] = recorded.contains(completions.get(i).lease());
		}
		return held;
	}

	/**
	 * Marks the jobs {@code SUCCEEDED} in one round trip and one commit, each fenced by its
	 * lease, and says which it recorded and which it passed over. Where the database has
	 * {@code SKIP LOCKED}, it never waits for a job's row that another transaction holds (a
	 * caller's open transaction that enqueued a job to run after it, or cancels it): it
	 * passes over that job, whose success is to be written later, and records the others.
	 * What a job's end settles (its dependents, its batch) is written with it, in a
	 * transaction of its own that waits at most {@link #OWN_LOCK_WAIT} for a row another
	 * transaction holds; a job whose settling waits longer is passed over too. SQLite has one
	 * writer at a time: it writes when no other transaction does, within its busy timeout,
	 * and passes over nothing.
	 */
	public CompletedJobs completeUnlessHeld(List<Completion> completions) {
		Set<Lease> recorded = completePlain(completions);
		List<Completion> missed = completions.stream()
			.filter((completion) -> !recorded.contains(completion.lease()))
			.toList();
		if (missed.isEmpty()) {
			return new CompletedJobs(recorded, Set.of());
		}
		// Jobs whose end settles others (dependents, a batch) are left alone by the plain
		// statement: they are completed here, each with what it settles, in one transaction.
		Set<Lease> settling = this.workflows.runningToSettle(missed.stream().map(Completion::lease).toList());
		List<Completion> slow = missed.stream().filter((completion) -> settling.contains(completion.lease())).toList();
		if (!slow.isEmpty()) {
			recorded.addAll(completeSettling(slow));
		}
		if (!this.dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)) {
			return new CompletedJobs(recorded, Set.of());
		}
		// A fenced write misses a job still running under its lease only when it passed over
		// its row (or what its end settles): those are written later. The others lost their lease.
		Set<Lease> passedOver = this.leases.running(missed.stream()
			.map(Completion::lease)
			.filter((lease) -> !recorded.contains(lease))
			.toList());
		return new CompletedJobs(recorded, passedOver);
	}

	/**
	 * The completions of jobs whose end settles nothing else, one statement each or one for
	 * all; where the database has {@code SKIP LOCKED}, of the rows no other transaction holds.
	 */
	private Set<Lease> completePlain(List<Completion> completions) {
		if (this.sql.completeAll != null) {
			// One statement commits on its own, in one round trip, unless this thread is in a
			// transaction, which the queue's own writes never join.
			Set<Long> ids = TransactionSynchronizationManager.isActualTransactionActive()
					? this.ownTransaction.execute((status) -> completeInOneStatement(completions, this.sql.completeAll))
					: completeInOneStatement(completions, this.sql.completeAll);
			return leasesOf(completions, ids);
		}
		return this.flushTransaction.execute((status) -> {
			List<Completion> unheld = unheld(completions);
			boolean[] held = held(batch(this.sql.plain(this.sql.complete), unheld, JobStore::bindCompletion));
			Set<Lease> recorded = new HashSet<>();
			for (int i = 0; i < held.length; i++) {
				if (held[i]) {
					recorded.add(unheld.get(i).lease());
				}
			}
			notifyFinished(recorded.stream().map(Lease::jobId).toList());
			return recorded;
		});
	}

	/**
	 * Of these completions, those whose row this transaction could lock, where the database
	 * has {@code SKIP LOCKED} (locked now, passing over rows another transaction holds, until
	 * the transaction ends, so nothing changes them in between); elsewhere all of them.
	 */
	private List<Completion> unheld(List<Completion> completions) {
		if (!this.dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)) {
			return completions;
		}
		Set<Lease> locked = this.leases.lock(completions.stream().map(Completion::lease).toList());
		return completions.stream().filter((completion) -> locked.contains(completion.lease())).toList();
	}

	/**
	 * Completes jobs whose end settles others, and settles it, in a transaction of its own;
	 * returns the leases it recorded. Where the database has {@code SKIP LOCKED} it passes over
	 * the jobs' rows another transaction holds, and waits at most {@link #OWN_LOCK_WAIT} for
	 * any other row (a batch's, a dependent's): past that, the whole transaction is rolled
	 * back and each job is tried alone, so that one held row leaves only its own job for later.
	 */
	private Set<Lease> completeSettling(List<Completion> completions) {
		if (!this.dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)) {
			return this.ownWorkflowTransaction.execute((status) -> settleCompleted(completions));
		}
		try {
			return this.ownWorkflowTransaction
				.execute((status) -> withBoundedLockWaits(() -> settleCompleted(unheld(completions))));
		}
		catch (PessimisticLockingFailureException ex) {
			if (completions.size() > 1) {
				Set<Lease> recorded = new HashSet<>();
				completions.forEach((completion) -> recorded.addAll(completeSettling(List.of(completion))));
				return recorded;
			}
			logger.debug("The success of job {} is left for a later flush: settling its end needs a row that another "
					+ "transaction has held for longer than {} ({})", completions.get(0).lease().jobId(),
					OWN_LOCK_WAIT, ex.getMessage());
			return Set.of();
		}
	}

	private Set<Lease> settleCompleted(List<Completion> completions) {
		boolean[] held = held(batch(this.sql.complete, completions, JobStore::bindCompletion));
		List<WorkflowStore.Ended> ends = new ArrayList<>();
		Set<Lease> recorded = new HashSet<>();
		for (int i = 0; i < held.length; i++) {
			if (held[i]) {
				Lease lease = completions.get(i).lease();
				recorded.add(lease);
				ends.add(new WorkflowStore.Ended(lease.jobId(), JobStatus.SUCCEEDED));
			}
		}
		notifyFinished(recorded.stream().map(Lease::jobId).toList());
		settle(ends);
		return recorded;
	}

	private static Set<Lease> leasesOf(List<Completion> completions, Set<Long> ids) {
		Set<Lease> leases = new HashSet<>();
		completions.stream()
			.map(Completion::lease)
			.filter((lease) -> ids.contains(lease.jobId()))
			.forEach(leases::add);
		return leases;
	}

	private static void bindCompletion(PreparedStatement ps, Completion completion) throws SQLException {
		ps.setString(1, completion.result());
		ps.setString(2, completion.note());
		ps.setLong(3, completion.lease().jobId());
		ps.setLong(4, completion.lease().token());
	}

	/**
	 * Writes the end of an attempt, or of a queued job, with {@code statement} (fenced; its
	 * parameters {@code args}): for a plain job one statement, as it always was; for a job
	 * whose end settles others, the same statement and the settling, in one transaction (the
	 * caller's, when there is one). Returns whether the statement changed the row.
	 */
	private boolean end(String statement, long id, Object... args) {
		return end(this.workflowTransaction, statement, id, args);
	}

	/** As {@link #end(String, long, Object...)}, the settling in {@code settling}'s transaction. */
	private boolean end(TransactionTemplate settling, String statement, long id, Object... args) {
		if (this.jdbc.update(this.sql.plain(statement), args) == 1) {
			return true;
		}
		return Boolean.TRUE.equals(settling.execute((status) -> {
			if (this.jdbc.update(statement, args) != 1) {
				return false;
			}
			this.workflows.statusOf(id)
				.filter(JobStatus::isFinished)
				.ifPresent((finished) -> settle(List.of(new WorkflowStore.Ended(id, finished))));
			return true;
		}));
	}

	/**
	 * Runs a sweep: where the database has {@code SKIP LOCKED}, in a short READ COMMITTED
	 * transaction of its own whose first statement locks the rows the sweep will end, passing
	 * over those another transaction holds (a caller's open transaction that enqueued a job to
	 * run after one of them, or cancels it; a worker frozen in its completion), so that the
	 * sweep never waits for them and ends them at a later pass. What it locks besides while
	 * it settles the jobs' ends it waits for at most {@link #OWN_LOCK_WAIT}; a job whose
	 * settling waits longer is left for the next pass ({@link #endInSweep}). SQLite has one
	 * writer at a time: its sweep writes when no other transaction does, within its busy
	 * timeout. The function is told whether its rows are to be locked.
	 */
	private <T> List<T> sweep(Function<Boolean, List<T>> pass) {
		if (!this.dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)) {
			return pass.apply(false);
		}
		return bounded(() -> pass.apply(true));
	}

	/**
	 * Runs {@code work} in a short READ COMMITTED transaction of its own whose waits for a row
	 * another transaction holds last at most {@link #OWN_LOCK_WAIT}, then fail as a
	 * {@code CannotAcquireLockException}. Only where the database has row locks.
	 */
	private <T> T bounded(Supplier<T> work) {
		return this.sweepTransaction.execute((status) -> withBoundedLockWaits(work));
	}

	/**
	 * Runs {@code work} in the current transaction waiting at most {@link #OWN_LOCK_WAIT}
	 * for any row lock, where the database can bound it ({@link Dialect#boundLockWaits}).
	 */
	private <T> T withBoundedLockWaits(Supplier<T> work) {
		Runnable restore = this.dialect.boundLockWaits(this.jdbc, OWN_LOCK_WAIT);
		try {
			return work.get();
		}
		finally {
			if (restore != null) {
				restore.run();
			}
		}
	}

	/**
	 * Writes the end of an attempt as {@link #end(String, long, Object...)} does, when the
	 * queue writes it on its own (a worker's failure or retry, a cancel, a give-back, the
	 * timeout sweep's): where the database has row locks, its wait for a row another
	 * transaction holds (a caller's open transaction that enqueued a job to run after this one)
	 * is bounded by {@link #bounded}, and the write fails as a transient error that the
	 * worker tries again later, instead of holding its thread (the timeout sweep's, the
	 * heartbeat's cancel writes) until that transaction ends. Inside a transaction (an
	 * operator's in the caller's) it is {@code end} as it was.
	 */
	private boolean attemptEnd(String statement, long id, Object... args) {
		if (!this.dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)
				|| TransactionSynchronizationManager.isActualTransactionActive()) {
			return end(statement, id, args);
		}
		return Boolean.TRUE.equals(bounded(() -> end(statement, id, args)));
	}

	/**
	 * Ends one of the jobs a sweep found (the reaper's, the deadline sweep's) as {@link #end}
	 * does, so that whatever happens to this one the sweep ends the others: in the sweep's
	 * transaction its end and settling run under a savepoint, and a failure, logged, leaves
	 * the job as it was for the next pass and the transaction usable. False when it failed.
	 */
	private boolean endInSweep(String statement, long id, Object... args) {
		TransactionTemplate settling = TransactionSynchronizationManager.isActualTransactionActive() ? this.savepoint
				: this.workflowTransaction;
		try {
			return end(settling, statement, id, args);
		}
		catch (PessimisticLockingFailureException ex) {
			logger.info("Job {} is left as it was until the next pass: settling its end needs a row that another "
					+ "transaction has held for longer than {} ({})", id, OWN_LOCK_WAIT, ex.getMessage());
			return false;
		}
		catch (RuntimeException ex) {
			logger.warn("Could not end job {} and settle what its end settles; it is left as it was until the next "
					+ "pass, and the other jobs are ended meanwhile", id, ex);
			return false;
		}
	}

	/**
	 * Settles these ends in the current transaction, announces the jobs it cancelled and the
	 * queues that got due jobs (where the database can), and tells the settle listeners once
	 * it commits.
	 */
	private void settle(List<WorkflowStore.Ended> ends) {
		if (ends.isEmpty()) {
			return;
		}
		WorkflowStore.Settled settled = this.workflows.settle(ends);
		notifyFinished(settled.cancelled.stream().map(WorkflowStore.Ended::id).toList());
		if (this.notifyChannel != null) {
			settled.releasedQueues.forEach((queue) -> this.jdbc.query(this.dialect.notifyStatement(), (rs) -> {
			}, this.notifyChannel, queue));
		}
		if (settled.releasedQueues.isEmpty() && settled.cancelledJobs.isEmpty()) {
			return;
		}
		Runnable tell = () -> this.settleListeners.forEach((listener) -> {
			try {
				if (!settled.releasedQueues.isEmpty()) {
					listener.released(Set.copyOf(settled.releasedQueues));
				}
				settled.cancelledJobs.forEach((job) -> listener.cancelled(job[0], job[1]));
			}
			catch (RuntimeException ex) {
				logger.warn("A settle listener failed", ex);
			}
		});
		AfterCommit.run(tell);
	}

	/**
	 * Tells every instance, where the database can (PostgreSQL's {@code NOTIFY}, on commit of
	 * the caller's transaction), that those of these jobs that someone awaits (their
	 * {@code awaited} column, read after their end was written) reached a final state, so
	 * that their waiters read them at once instead of at their next poll. Only awaited jobs:
	 * a {@code NOTIFY} serializes the commits of every announcing transaction, too dear for
	 * every end.
	 */
	private void notifyFinished(Collection<Long> ids) {
		if (this.notifyChannel == null || ids.isEmpty()) {
			return;
		}
		List<Long> awaited = new ArrayList<>();
		for (Object[] chunk : IdChunks.of(ids)) {
			awaited.addAll(this.jdbc.queryForList(this.sql.awaitedAmong(chunk.length), Long.class, chunk));
		}
		announceFinished(awaited);
	}

	/** Sends the {@code NOTIFY} of {@link #notifyFinished} for these awaited jobs. */
	private void announceFinished(Collection<Long> ids) {
		if (this.notifyChannel != null && !ids.isEmpty()) {
			for (String payload : PostgresNotifications.finishedPayloads(ids)) {
				this.jdbc.query(this.dialect.notifyStatement(), (rs) -> {
				}, this.notifyChannel, payload);
			}
		}
	}

	/**
	 * Runs {@code work} in one transaction on the queue's data source, in which
	 * {@link #completeWhileLeased} then completes the job: the work's writes through Spring
	 * JDBC and the completion commit or roll back together.
	 */
	public <T> T inTransaction(Supplier<T> work) {
		return this.ownTransaction.execute((status) -> work.get());
	}

	/**
	 * Marks the job {@code SUCCEEDED} if its lease still holds now (by the database's clock
	 * at this moment, not the transaction's start); within {@link #inTransaction}.
	 */
	public boolean completeWhileLeased(Completion completion) {
		boolean held = end(this.sql.completeWhileLeased, completion.lease().jobId(), completion.result(),
				completion.note(), completion.lease().jobId(), completion.lease().token());
		if (held) {
			notifyFinished(List.of(completion.lease().jobId()));
		}
		return held;
	}

	private Set<Long> completeInOneStatement(List<Completion> completions, String statement) {
		Long[] ids = new Long[completions.size()];
		Long[] tokens = new Long[completions.size()];
		String[] results = new String[completions.size()];
		String[] notes = new String[completions.size()];
		for (int i = 0; i < ids.length; i++) {
			ids[i] = completions.get(i).lease().jobId();
			tokens[i] = completions.get(i).lease().token();
			results[i] = completions.get(i).result();
			notes[i] = completions.get(i).note();
		}
		List<Long> awaited = new ArrayList<>();
		Set<Long> held = new HashSet<>(this.jdbc.execute((Connection connection) -> {
			try (PreparedStatement ps = connection.prepareStatement(statement)) {
				ps.setArray(1, connection.createArrayOf("bigint", ids));
				ps.setArray(2, connection.createArrayOf("bigint", tokens));
				ps.setArray(3, connection.createArrayOf("text", results));
				ps.setArray(4, connection.createArrayOf("text", notes));
				List<Long> updated = new ArrayList<>();
				try (ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						updated.add(rs.getLong(1));
						if (rs.getInt(2) != 0) {
							awaited.add(rs.getLong(1));
						}
					}
				}
				return updated;
			}
		}));
		// The statement read each job's awaited column already.
		announceFinished(awaited);
		return held;
	}

	/**
	 * The leases whose job no longer runs and still carries their token: the write that ended
	 * that attempt landed, even if its caller never heard so (a commit whose answer was lost
	 * to a failover). Any other lease that a fenced write missed was handed on, or its job
	 * changed by an operator.
	 */
	public Set<Lease> finishedUnder(Collection<Lease> leases) {
		if (leases.isEmpty()) {
			return Set.of();
		}
		Set<Lease> finished = new HashSet<>();
		for (Object[] chunk : IdChunks.of(leases.stream().map(Lease::jobId).toList())) {
			this.jdbc.query(this.sql.finishedUnder(chunk.length), (rs) -> {
				long token = rs.getLong("lease_token");
				if (!rs.wasNull()) {
					finished.add(new Lease(rs.getLong("id"), token));
				}
			}, chunk);
		}
		finished.retainAll(leases);
		return finished;
	}

	/**
	 * Why this database cannot store the JSON text (a NUL character, nesting too deep), or
	 * {@code null} when it can; checked before a write, so that nothing reaches the
	 * database that it would refuse.
	 */
	public @Nullable String whyNotStorable(String json) {
		return StorableJson.problem(json, this.dialect.maxJsonDepth());
	}

	/** Puts the job back to wait {@code delay} (on the database's clock) before its next attempt. */
	public boolean reschedule(Lease lease, String error, Duration delay) {
		return attemptEnd(this.sql.reschedule, lease.jobId(), delay.toMillis(), error, lease.jobId(), lease.token());
	}

	/** Marks the job {@code FAILED} for good, with its last error. */
	public boolean fail(Lease lease, String error) {
		return finish(lease, JobStatus.FAILED, error);
	}

	/**
	 * Marks the running job {@code CANCELLED}, with the reason as its last error: its cancel
	 * was asked for, or its deadline passed before it could start.
	 */
	public boolean cancelRunning(Lease lease, String reason) {
		return finish(lease, JobStatus.CANCELLED, reason);
	}

	private boolean finish(Lease lease, JobStatus status, String error) {
		boolean held = attemptEnd(this.sql.finish, lease.jobId(), status.name(), error, lease.jobId(),
				lease.token());
		if (held) {
			notifyFinished(List.of(lease.jobId()));
		}
		return held;
	}

	/** Gives back a claimed job that never started; the claim does not count as an attempt. */
	public boolean release(Lease lease) {
		return attemptEnd(this.sql.release, lease.jobId(), lease.jobId(), lease.token());
	}

	/**
	 * Moves the leases' expiry to now plus {@code duration}, in a transaction of its own;
	 * says which it extended, which it passed over (their row was locked by another
	 * transaction, see {@link JobLeases}; they still hold) and which were lost.
	 */
	public ExtendedLeases extendLeases(Collection<Lease> leases, Duration duration) {
		if (leases.isEmpty()) {
			return ExtendedLeases.NONE;
		}
		// In job id order, as completions are written, so the two never lock rows in opposite orders.
		List<Lease> ordered = leases.stream().sorted(java.util.Comparator.comparingLong(Lease::jobId)).toList();
		Set<Lease> extended = this.leaseTransaction.execute((status) -> this.leases.extend(ordered, duration));
		List<Lease> missed = ordered.stream().filter((lease) -> !extended.contains(lease)).toList();
		Set<Lease> passedOver = missed.isEmpty() ? Set.of() : this.leases.running(missed);
		return new ExtendedLeases(extended, passedOver,
				missed.stream().filter((lease) -> !passedOver.contains(lease)).toList());
	}

	/**
	 * Re-queues up to {@code limit} jobs whose lease expired, each such end of an attempt
	 * counted as a crash; fails those whose attempts are used up or that crashed
	 * {@code maxCrashes} times, and cancels those whose cancel was asked for. Safe to run
	 * from any number of instances at once. A job whose end cannot be written or settled is
	 * left for the next pass (and logged); it never holds back the others.
	 */
	public List<ReapedJob> reapExpired(int limit, int maxCrashes) {
		return sweep((locked) -> reap(locked ? this.sql.lockExpiredLeases : this.sql.expiredLeases, limit,
				maxCrashes));
	}

	/**
	 * Where the database has {@code SKIP LOCKED}, the expired rows are locked first and rows
	 * locked by someone else are passed over: a worker that froze inside a transaction (a
	 * completion, a transactional handler) holds its row locks, and waiting for them would
	 * stall the reaper, and every job it should re-queue, for as long as the freeze lasts.
	 * The row stays the frozen worker's; nobody else can run it meanwhile.
	 */
	private List<ReapedJob> reap(String expiredLeases, int limit, int maxCrashes) {
		List<ReapedJob> reaped = new ArrayList<>();
		this.jdbc.query(expiredLeases, (rs) -> {
			int crashes = rs.getInt("crashes") + 1;
			boolean cancelRequested = this.dialect.getTimestamp(rs, "cancel_requested_at") != null;
			JobStatus status;
			String error;
			if (cancelRequested) {
				status = JobStatus.CANCELLED;
				error = CANCELLED_WHILE_RUNNING + "; its worker was lost before it stopped";
			}
			else if (crashes >= maxCrashes) {
				status = JobStatus.FAILED;
				error = "Worker lost " + crashes + " times (" + LEASE_EXPIRED.toLowerCase(Locale.ROOT)
						+ "); sqlqueue.retry.max-crashes is " + maxCrashes;
			}
			else {
				status = (rs.getInt("attempts") >= rs.getInt("max_attempts")) ? JobStatus.FAILED : JobStatus.QUEUED;
				error = LEASE_EXPIRED;
			}
			reaped.add(new ReapedJob(rs.getLong("id"), rs.getString("queue"), rs.getString("handler"),
					String.valueOf(rs.getString("lease_owner")), status, crashes, rs.getLong("lease_token"), error));
		}, limit);
		List<ReapedJob> done = new ArrayList<>(reaped.size());
		for (ReapedJob job : reaped) {
			if (endInSweep(this.sql.reap, job.id(), job.status().name(), job.status().name(), job.error(), job.id(),
					job.token())) {
				done.add(job);
			}
		}
		notifyFinished(done.stream().filter((job) -> job.status().isFinished()).map(ReapedJob::id).toList());
		return done;
	}

	/**
	 * Cancels up to {@code limit} queued jobs whose deadline passed; returns them. Safe to
	 * run from any number of instances at once. A job whose end cannot be written or settled
	 * is left for the next pass (and logged); it never holds back the others.
	 */
	public List<ExpiredJob> expirePassedDeadlines(int limit) {
		return sweep((locked) -> expire(locked ? this.sql.lockPassedDeadlines : this.sql.passedDeadlines, limit));
	}

	private List<ExpiredJob> expire(String passedDeadlines, int limit) {
		List<ExpiredJob> passed = this.jdbc.query(passedDeadlines,
				(rs, row) -> new ExpiredJob(rs.getLong("id"), rs.getString("queue"), rs.getString("handler"),
						timestamp(rs, "deadline")),
				limit);
		List<ExpiredJob> expired = new ArrayList<>(passed.size());
		for (ExpiredJob job : passed) {
			if (endInSweep(this.sql.expire, job.id(), deadlinePassed(job.deadline()), job.id())) {
				expired.add(job);
			}
		}
		notifyFinished(expired.stream().map(ExpiredJob::id).toList());
		return expired;
	}

	/** The reason an expired job gives in its last error. */
	public static String deadlinePassed(Instant deadline) {
		return "Deadline " + deadline + " passed before the job started";
	}

	/**
	 * Asks for the cancel of a {@code RUNNING} job: the instance that holds it stops it (it
	 * learns at its next heartbeat, or at once by {@code NOTIFY} on PostgreSQL). False when the
	 * job is not running.
	 */
	public boolean requestCancel(long id) {
		boolean requested = isThere(id) && this.jdbc.update(this.sql.requestCancel, id) == 1;
		if (requested && this.notifyChannel != null) {
			this.jdbc.query(this.dialect.notifyStatement(), (rs) -> {
			}, this.notifyChannel, PostgresNotifications.cancelPayload(id));
		}
		return requested;
	}

	/**
	 * Notes that someone awaits the job, where finishing jobs are announced: a completion
	 * flush then announces it. Its own transaction, so that it counts even while the caller's
	 * is open. Does nothing without notifications, where waiters read the job at intervals.
	 */
	public void markAwaited(long id) {
		if (this.notifyChannel != null) {
			this.ownTransaction.executeWithoutResult((status) -> this.jdbc.update(this.sql.markAwaited, id));
		}
	}

	/** Of these running jobs, the ones whose cancel was asked for. */
	public Set<Long> cancelRequested(Collection<Long> ids) {
		if (ids.isEmpty()) {
			return Set.of();
		}
		Set<Long> requested = new HashSet<>();
		for (Object[] chunk : IdChunks.of(ids)) {
			requested.addAll(this.jdbc.queryForList(this.sql.cancelRequested(chunk.length), Long.class, chunk));
		}
		return requested;
	}

	/** The jobs of these ids, as stored now (fewer when some do not exist). */
	public List<JobRecord> findAll(Collection<Long> ids) {
		List<JobRecord> found = new ArrayList<>();
		for (Object[] chunk : IdChunks.of(ids)) {
			found.addAll(this.jdbc.query(this.sql.findAll(chunk.length), jobRows(), chunk));
		}
		return found;
	}

	public Optional<JobRecord> find(long id) {
		return this.jdbc.query(this.sql.find, jobRows(), id).stream().findFirst();
	}

	/**
	 * Cancels a {@code QUEUED} or {@code WAITING} job, and settles what it ends (its
	 * dependents, its batch); false when there is no such job or it is in another state.
	 */
	public boolean cancel(long id) {
		boolean cancelled = isThere(id) && end(this.sql.cancel, id, id);
		if (cancelled) {
			notifyFinished(List.of(id));
		}
		return cancelled;
	}

	/**
	 * Whether an operator's write by id ({@link #cancel}, {@link #requestCancel},
	 * {@link #retryFailed}) may find its job: inside a caller's transaction, only when the
	 * transaction sees the job, read without a lock. Under MySQL's REPEATABLE READ (InnoDB's
	 * default, which the queue cannot change inside a caller's transaction) a write that finds
	 * no row locks the gap where it looked; above the highest id that gap is where every
	 * enqueue inserts, so it would hold up the enqueues of every instance until the caller's
	 * transaction ends. A write that finds its row by the primary key locks that row only.
	 * Outside a transaction each statement commits at once and holds nothing for long.
	 */
	private boolean isThere(long id) {
		return !TransactionSynchronizationManager.hasResource(this.dataSource)
				|| !this.jdbc.queryForList(this.sql.exists, Integer.class, id).isEmpty();
	}

	/** Queues a {@code FAILED} job again with a fresh set of attempts; false when it is not failed. */
	public boolean retryFailed(long id) {
		try {
			return isThere(id) && this.jdbc.update(this.sql.retryFailed, id) == 1;
		}
		catch (DuplicateKeyException ex) {
			String key = find(id).map(JobRecord::uniqueKey).orElse("?");
			throw new DuplicateJobException(String.valueOf(key));
		}
	}

	/**
	 * Queues up to {@code limit} {@code FAILED} jobs of this queue and this handler
	 * ({@code null} for any) again with a fresh set of attempts, oldest first; returns the
	 * ids it queued. Each job is queued by its own statement, so call it outside a
	 * transaction: a failed job whose unique key an unfinished job holds stays failed.
	 */
	public List<Long> retryAllFailed(@Nullable String queue, @Nullable String handler, int limit) {
		List<Long> ids = this.jdbc.queryForList(this.sql.failedJobs, Long.class,
				new SqlParameterValue(Types.VARCHAR, queue), new SqlParameterValue(Types.VARCHAR, handler), limit);
		List<Long> retried = new ArrayList<>(ids.size());
		for (long id : ids) {
			try {
				if (this.jdbc.update(this.sql.retryFailed, id) == 1) {
					retried.add(id);
				}
			}
			catch (DuplicateKeyException ex) {
				// Another job with its unique key was enqueued meanwhile: this one stays failed.
			}
		}
		return retried;
	}

	/** Due jobs per queue and handler, with the age of the oldest. */
	public List<Backlog> dueBacklog() {
		return this.jdbc.query(this.sql.dueBacklog, (rs, row) -> {
			Instant oldest = this.dialect.getTimestamp(rs, "oldest_run_at");
			Instant now = this.dialect.getTimestamp(rs, "db_now");
			Duration age = (oldest != null && now != null && now.isAfter(oldest)) ? Duration.between(oldest, now)
					: Duration.ZERO;
			return new Backlog(rs.getString("queue"), rs.getString("handler"), rs.getLong("due_jobs"), age);
		});
	}

	/**
	 * Claims the {@code QUEUED} job of this id for {@code owner}, due or not, as a claim
	 * would (a new token and lease, one more attempt); empty when it is not queued. For the
	 * test kit's "run this job now": not a path of the Manager.
	 */
	public Optional<JobRecord> claimById(long id, String owner, long leaseMillis) {
		long token = ThreadLocalRandom.current().nextLong();
		return this.claimTransaction.execute((status) -> {
			if (this.jdbc.update(this.sql.claimById, owner, token, leaseMillis, id) != 1) {
				return Optional.<JobRecord>empty();
			}
			return find(id);
		});
	}

	/**
	 * Makes the delayed {@code QUEUED} jobs of these handlers (future {@code run_at}: a delay,
	 * or a retry's backoff) due now, on the database's clock; returns how many. For tests.
	 */
	public int makeDue(Collection<String> handlers) {
		if (handlers.isEmpty()) {
			return 0;
		}
		return this.jdbc.update(this.sql.makeDue(handlers.size()), handlers.toArray());
	}

	/** Up to {@code limit} jobs of this handler in this state, oldest (lowest id) first. */
	public List<JobRecord> findByHandler(String handler, JobStatus status, int limit) {
		return this.jdbc.query(this.sql.findByHandler, jobRows(), handler, status.name(), limit);
	}

	/** One statement per item, sent in one round trip; the update count per item. */
	private <T> int[] batch(String statement, List<T> items, ParameterizedPreparedStatementSetter<T> setter) {
		if (items.isEmpty()) {
			return new int[0];
		}
		return this.jdbc.batchUpdate(statement, items, items.size(), setter)[0];
	}

	/**
	 * Whether nothing but the queue itself will reclaim the table's dead rows: on
	 * PostgreSQL, when autovacuum is off for the server or the table. Every claim and
	 * completion leaves a dead row version behind, so such a table would grow without end.
	 */
	public boolean needsOwnVacuum() {
		String query = this.dialect.unvacuumedQuery();
		return query != null && Boolean.TRUE.equals(this.jdbc.queryForObject(query, Boolean.class, this.sql.tableName));
	}

	/** Reclaims the table's dead rows where the database needs to be told ({@code VACUUM} on PostgreSQL). */
	public void vacuum() {
		if (this.sql.vacuum != null) {
			this.jdbc.execute(this.sql.vacuum);
		}
	}

	/**
	 * Jobs per queue and status, with the age of each queue's oldest due job: one grouped
	 * query over the table, meant for a schedule rather than for every look.
	 */
	public List<QueueCount> countsByQueue() {
		return this.jdbc.query(this.sql.countsByQueue, (rs, row) -> {
			Instant oldest = this.dialect.getTimestamp(rs, "oldest_due");
			Instant now = this.dialect.getTimestamp(rs, "db_now");
			Duration age = (oldest != null && now != null && now.isAfter(oldest)) ? Duration.between(oldest, now)
					: Duration.ZERO;
			return new QueueCount(rs.getString("queue"), JobStatus.valueOf(rs.getString("status")),
					rs.getLong("jobs"), age);
		});
	}

	/**
	 * Deletes up to {@code limit} jobs in this finished state that finished longer than
	 * {@code age} ago; returns how many. Touches only finished rows, so claims never wait
	 * for it. Where the database has {@code SKIP LOCKED}, it locks them first (READ COMMITTED,
	 * so MySQL takes no gap locks) and passes over rows another transaction holds: a caller's
	 * open transaction that enqueued a job after a finished one holds that row, and waiting
	 * for it would stop every later pass of the pruner until that transaction ends.
	 */
	public int pruneFinished(JobStatus status, Duration age, int limit) {
		if (!status.isFinished()) {
			throw new IllegalArgumentException("Only finished jobs are pruned, not " + status);
		}
		if (this.dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)) {
			Integer pruned = this.claimTransaction
				.execute((tx) -> prune(this.sql.lockFinishedBefore, status, age, limit));
			return (pruned != null) ? pruned : 0;
		}
		return prune(this.sql.finishedBefore, status, age, limit);
	}

	private int prune(String finishedBefore, JobStatus status, Duration age, int limit) {
		List<Long> ids = this.jdbc.queryForList(finishedBefore, Long.class, status.name(), -age.toMillis(), limit);
		int[] counts = batch(this.sql.deleteFinished, ids, (ps, id) -> {
			ps.setLong(1, id);
			ps.setString(2, status.name());
		});
		boolean[] held = held(counts);
		List<Long> deleted = new ArrayList<>(ids.size());
		for (int i = 0; i < held.length; i++) {
			if (held[i]) {
				deleted.add(ids.get(i));
			}
		}
		this.workflows.forget(deleted);
		return deleted.size();
	}

	/**
	 * When a limited claim that found its queue's flow row held by another transaction for
	 * too long ({@link FlowStore#FLOW_LOCK_WAIT}) is made again: so that a row an application
	 * holds costs the instance's poll loop at most that wait every second.
	 */
	static final Duration FLOW_BUSY_RETRY = Duration.ofSeconds(1);

	/** The most batches one pass of the pruner deletes; the next pass goes on. */
	static final int BATCHES_PRUNED = 1_000;

	/**
	 * Deletes the batches that finished longer than {@code age} ago, and whose callback (if
	 * any) finished that long ago too or is gone (by then their jobs are pruned too, when
	 * {@code age} is the longest retention); returns how many. A batch whose callback has not
	 * run yet is kept, so the callback finds it.
	 */
	public int pruneBatches(Duration age) {
		// As pruneFinished: locked first, passing over a batch another transaction holds.
		Integer pruned = this.claimTransaction.execute((tx) -> this.workflows.pruneBatches(age, BATCHES_PRUNED));
		return (pruned != null) ? pruned : 0;
	}

	/**
	 * Which fenced writes changed their row. A driver that answers "no info" would leave a
	 * lost lease unnoticed: that is refused loudly rather than guessed.
	 */
	static boolean[] held(int[] counts) {
		boolean[] held = new boolean[counts.length];
		for (int i = 0; i < counts.length; i++) {
			if (counts[i] == Statement.SUCCESS_NO_INFO) {
				throw new IllegalStateException("The JDBC driver did not report update counts of a batch "
						+ "(SUCCESS_NO_INFO); sqlqueue needs them to fence its writes. "
						+ "With MariaDB Connector/J, do not set useBulkStmts=true.");
			}
			held[i] = counts[i] == 1;
		}
		return held;
	}

	private RowMapper<JobRecord> jobRows() {
		return new JobRows(this.dialect, false);
	}

	private Instant timestamp(ResultSet rs, String column) throws SQLException {
		Instant value = this.dialect.getTimestamp(rs, column);
		if (value == null) {
			throw new IllegalStateException("Column " + column + " is null");
		}
		return value;
	}

}
