package io.sqlqueue.internal.store;

import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.concurrent.ThreadLocalRandom;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.ParameterizedPreparedStatementSetter;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.SqlParameterValue;

import io.sqlqueue.DuplicateJobException;
import io.sqlqueue.ExpiredJob;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.Names;
import io.sqlqueue.ReapedJob;
import io.sqlqueue.admin.TableHealth;

/**
 * The JDBC implementation of {@link QueueStore}: the queue's verbs as SQL. Each method runs
 * in the caller's transaction when there is one (so an enqueue commits with the caller),
 * else in its own short one ({@link StoreTransactions} names which). A claim never leaves a
 * transaction open. It builds every sub-store once, on one template and one transaction
 * manager: its verb families ({@link JobInserts}, {@link JobClaims}, {@link JobCompletions},
 * {@link JobEnds}, {@link JobLeases}) and the stores of flows, schedules, workflows and
 * browsing; the claim of a limited queue is flow control's ({@link LimitedClaim}), on the
 * same {@link FlowStore} as {@link #flows()} gives.
 */
public class JobStore implements QueueStore {

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

	/** The reason a job reaped after its instance stopped and left its handler running gives. */
	public static final String LEFT_AT_STOP = "Lease expired after its instance stopped: the handler did not end when "
			+ "interrupted at stop; no crash counted";

	/** The reason a job given back by an instance that stopped while it ran gives in its last error. */
	public static final String STOPPED_WHILE_RUNNING = "Stopped while running: its instance shut down past "
			+ "sqlqueue.manager.shutdown-timeout and interrupted the handler; given back, no attempt spent";

	private final Dialect dialect;

	private final ClaimMethod claimMethod;

	private final JobSql sql;

	private final JobEndSql endSql;

	private final LeaseSql leaseSql;

	private final JobReadSql readSql;

	private final JobBulkSql bulkSql;

	private final JdbcTemplate jdbc;

	private final @Nullable String notifyChannel;

	/** Every transaction a verb runs in, by name. */
	private final StoreTransactions transactions;

	private final JobInserts inserts;

	private final JobClaims claims;

	/** Flow control's claim of queues with limits, on {@link #flows}. */
	private final LimitedClaim flowClaim;

	private final WorkflowStore workflows;

	private final FlowStore flows;

	private final ScheduleStore schedules;

	private final JobBrowser browser;

	private final JobLabels labels;

	private final StepStore steps;

	private final ClusterStore cluster;

	private final JobLeases leases;

	private final JobEnds ends;

	private final JobCompletions completions;

	private final AttemptHistory attempts;

	private final AuditLog audit;

	private final TableHealthReader tableHealth;

	private final QueueCounter counter;

	/** The horizon {@link #vacuum()} read before its last vacuum; {@code null} before the first or where none held it. */
	private volatile @Nullable String horizonAtLastVacuum;

	public JobStore(DataSource dataSource, Dialect dialect, @Nullable String schema) {
		this(dataSource, dialect, schema, dialect.claimMethod());
	}

	public JobStore(DataSource dataSource, Dialect dialect, @Nullable String schema, ClaimMethod claimMethod) {
		this(dataSource, dialect, schema, claimMethod, null);
	}

	/**
	 * A store without flow control: it claims no job of a queue with limits, and fails loudly
	 * when it finds one ({@link LimitedClaim#NONE}).
	 * @param notifyChannel where to announce enqueues ({@code PostgresNotifications}), or
	 * {@code null} for none; only on a database with a {@link Dialect#notifyStatement()}
	 */
	public JobStore(DataSource dataSource, Dialect dialect, @Nullable String schema, ClaimMethod claimMethod,
			@Nullable String notifyChannel) {
		this(dataSource, dialect, schema, claimMethod, notifyChannel, LimitedClaim.NONE);
	}

	/**
	 * @param notifyChannel where to announce enqueues ({@code PostgresNotifications}), or
	 * {@code null} for none; only on a database with a {@link Dialect#notifyStatement()}
	 * @param limitedClaims the claim of queues with limits, on this store's own flow store
	 * (flow control's: {@code io.sqlqueue.internal.flow.FlowClaim::new})
	 */
	public JobStore(DataSource dataSource, Dialect dialect, @Nullable String schema, ClaimMethod claimMethod,
			@Nullable String notifyChannel, LimitedClaim.Factory limitedClaims) {
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
		this.endSql = new JobEndSql(dialect, schema);
		this.leaseSql = new LeaseSql(dialect, schema);
		this.readSql = new JobReadSql(dialect, schema);
		this.bulkSql = new JobBulkSql(dialect, schema);
		this.jdbc = jdbcTemplate(dataSource, dialect);
		this.transactions = new StoreTransactions(dataSource, dialect);
		WorkAnnouncer announcer = (notifyChannel != null)
				? new WorkAnnouncer(dataSource, dialect.notifyStatement(), notifyChannel) : null;
		this.labels = new JobLabels(this.jdbc, dialect, schema);
		this.inserts = new JobInserts(this.jdbc, this.sql, dialect, announcer, this.labels);
		this.claims = new JobClaims(this.jdbc, this.sql, dialect, claimMethod, this.transactions);
		this.flows = new FlowStore(this.jdbc, this.transactions, dialect, this.sql, schema, notifyChannel);
		this.schedules = new ScheduleStore(this.jdbc, this.transactions, dialect, schema);
		this.browser = new JobBrowser(this.jdbc, this.transactions, dialect, schema);
		this.cluster = new ClusterStore(this.jdbc, this.transactions, dialect, schema);
		this.flowClaim = limitedClaims.create(this.flows);
		this.workflows = new WorkflowStore(this.jdbc, dialect, schema);
		this.leases = new JobLeases(this.jdbc, this.leaseSql, dialect);
		this.attempts = new AttemptHistory(this.jdbc, dialect, schema);
		this.audit = new AuditLog(this.jdbc, this.transactions, dialect, schema);
		this.steps = new StepStore(this.jdbc, dialect, this.transactions, announcer, this.sql.tableName, schema);
		this.ends = new JobEnds(this.jdbc, this.endSql, this.leaseSql, dialect, this.transactions, this.workflows, this.attempts,
				notifyChannel, announcer);
		this.completions = new JobCompletions(this.jdbc, this.endSql, this.transactions, this.workflows, this.leases,
				this.ends, this.attempts);
		this.tableHealth = dialect.tableHealthReader(this.jdbc, Names.requireSchema(schema));
		this.counter = dialect.queueCounter(this.jdbc, this.sql.tableName, this::countAll);
	}

	/**
	 * A template on the queue's data source that translates this database's errors as the
	 * store expects, a server that is no primary now first ({@link DemotedServers}).
	 */
	static JdbcTemplate jdbcTemplate(DataSource dataSource, Dialect dialect) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.setExceptionTranslator(
				new DemotedServers(dataSource, dialect.exceptionTranslator(jdbc.getExceptionTranslator())));
		return jdbc;
	}

	@Override
	public WorkflowStore workflows() {
		return this.workflows;
	}

	@Override
	public FlowStore flows() {
		return this.flows;
	}

	@Override
	public ScheduleStore schedules() {
		return this.schedules;
	}

	@Override
	public JobBrowser browser() {
		return this.browser;
	}

	/**
	 * Runs {@code work} with the caller's transaction on the queue's data source, if any,
	 * suspended: the store's verbs inside start transactions of their own (a bulk action's
	 * chunks, which must not hold their locks until the caller commits, nor roll back with it).
	 */
	public <T> T outsideCallerTransaction(Supplier<T> work) {
		return this.transactions.outsideCaller(work);
	}

	@Override
	public ClusterStore cluster() {
		return this.cluster;
	}

	@Override
	public AttemptHistory attempts() {
		return this.attempts;
	}

	@Override
	public AuditLog audit() {
		return this.audit;
	}

	/** Told what settling jobs' ends did, after it commits. */
	@Override
	public void addSettleListener(SettleListener listener) {
		this.ends.addSettleListener(listener);
	}

	@Override
	public void removeSettleListener(SettleListener listener) {
		this.ends.removeSettleListener(listener);
	}

	@Override
	public Dialect dialect() {
		return this.dialect;
	}

	@Override
	public ClaimMethod claimMethod() {
		return this.claimMethod;
	}

	/**
	 * Inserts the jobs and returns their ids, in order, in the caller's transaction when there
	 * is one. All or nothing: a duplicate unique key throws {@link DuplicateJobException} and
	 * writes none of them, and the caller's transaction stays usable.
	 */
	@Override
	public List<Long> insert(List<NewJob> jobs) {
		if (jobs.isEmpty()) {
			return List.of();
		}
		if (this.transactions.callerHasOne()) {
			// One row needs no savepoint: its one statement is atomic, and a duplicate inserts
			// nothing. A template joining the caller's transaction would mark it rollback-only.
			return (jobs.size() == 1) ? this.inserts.insert(jobs)
					: this.transactions.inSavepoint(() -> this.inserts.insert(jobs));
		}
		return this.transactions.inCallerOrNew(() -> this.inserts.insert(jobs));
	}

	/**
	 * Inserts jobs with their links (dependencies, a batch) in the caller's transaction when
	 * there is one, all or nothing, as {@link #insert(List)} does; the jobs they run after are
	 * checked before anything is written.
	 * @throws io.sqlqueue.InvalidJobException for a job to run after that does not exist, or
	 * has ended in a way that would cancel the new job at once
	 */
	@Override
	public LinkedIds insert(LinkedJobs jobs) {
		if (this.transactions.callerHasOne()) {
			return this.transactions.inSavepoint(() -> this.workflows.insert(jobs, this.inserts::insert));
		}
		return this.transactions.inCallerOrNewForSettling(() -> this.workflows.insert(jobs, this.inserts::insert));
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
	@Override
	public List<JobRecord> claim(ClaimRequest request) {
		return claimJobs(request).jobs();
	}

	/**
	 * Claims as {@link #claim} does, and says what held due jobs back when the queue has
	 * limits (docs/flow-control.md). A queue with limits is claimed under them
	 * ({@link LimitedClaim}); a claim without limits leaves a queue alone while it has them, so
	 * an instance that has not heard of new limits yet finds nothing, looks, and claims under
	 * them.
	 */
	@Override
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
			return this.transactions.inLimitedClaim(() -> this.flowClaim.claim(request, token));
		}
		catch (FlowBusyException ex) {
			logger.debug("Claim of queue '{}' takes nothing this time; trying again in {}", request.queue(),
					FLOW_BUSY_RETRY, ex);
			return new ClaimResult(List.of(), true, FLOW_BUSY_RETRY, false);
		}
		catch (FlowStore.NotReadCommittedException ex) {
			logger.info("The connections' transactions are not READ COMMITTED: limited claims ask for it from now on");
			this.transactions.limitedClaimsAskForReadCommitted();
			return this.transactions.inCallerOrNewReadCommitted(() -> this.flowClaim.claim(request, token));
		}
	}

	/**
	 * Marks the jobs {@code SUCCEEDED} as {@link #completeUnlessHeld} does, and writes those
	 * it passes over again every {@link #HELD_RETRY} until it can: for tools that run jobs
	 * on the calling thread ({@code JobRunner}), which wait for their write as the statement
	 * once waited for the row. Returns, per completion, whether its lease still held (false
	 * for those still held when the thread is interrupted).
	 */
	@Override
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
	@Override
	public CompletedJobs completeUnlessHeld(List<Completion> completions) {
		return this.completions.completeUnlessHeld(completions);
	}

	/**
	 * Runs {@code work} in one transaction on the queue's data source, in which
	 * {@link #completeWhileLeased} then completes the job: the work's writes through Spring
	 * JDBC and the completion commit or roll back together. On SQLite it does not take the
	 * write lock first ({@link #takeWriteLockFirst}): the work would then hold the database's
	 * one write lock for its whole run, and a handler that hangs would stop every writer of
	 * every instance, its own reaper included. A handler that reads before it writes may fail
	 * at its write instead, and is retried (docs/databases.md).
	 */
	@Override
	public <T> T inTransaction(Supplier<T> work) {
		return this.transactions.inNewTransaction(work);
	}

	/**
	 * Marks the job {@code SUCCEEDED} if its lease still holds now (by the database's clock
	 * at this moment, not the transaction's start); within {@link #inTransaction}.
	 */
	@Override
	public boolean completeWhileLeased(Completion completion) {
		return this.completions.completeWhileLeased(completion);
	}

	/**
	 * The leases whose job no longer runs and still carries their token: the write that ended
	 * that attempt landed, even if its caller never heard so (a commit whose answer was lost
	 * to a failover). Any other lease that a fenced write missed was handed on, or its job
	 * changed by an operator.
	 */
	@Override
	public Set<Lease> finishedUnder(Collection<Lease> leases) {
		if (leases.isEmpty()) {
			return Set.of();
		}
		Set<Lease> finished = new HashSet<>();
		for (Object[] chunk : IdChunks.of(leases.stream().map(Lease::jobId).toList())) {
			this.jdbc.query(this.readSql.finishedUnder(chunk.length), (rs) -> {
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
	@Override
	public @Nullable String whyNotStorable(String json) {
		return StorableJson.problem(json, this.dialect.maxJsonDepth());
	}

	/**
	 * Parks the running job (docs/durable-steps.md), fenced by its lease: until the wake time
	 * of its record of this kind ({@code "sleep"} or {@code "signal"}) and name, or, without
	 * one, for {@code delay}. No attempt is spent. False when the lease was lost.
	 */
	public boolean park(Lease lease, @Nullable String kind, @Nullable String name, Duration delay) {
		return this.ends.park(lease, kind, name, delay.toMillis());
	}

	/** Jobs' durable progress: their steps, sleeps, waits and signals. */
	public StepStore steps() {
		return this.steps;
	}

	/** Puts the job back to wait {@code delay} (on the database's clock) before its next attempt. */
	@Override
	public boolean reschedule(Lease lease, String error, Duration delay) {
		return this.ends.reschedule(lease, error, delay.toMillis());
	}

	/** Marks the job {@code FAILED} for good, with its last error. */
	@Override
	public boolean fail(Lease lease, String error) {
		return finish(lease, JobStatus.FAILED, error);
	}

	/**
	 * Marks the running job {@code CANCELLED}, with the reason as its last error: its cancel
	 * was asked for, or its deadline passed before it could start.
	 */
	@Override
	public boolean cancelRunning(Lease lease, String reason) {
		return finish(lease, JobStatus.CANCELLED, reason);
	}

	private boolean finish(Lease lease, JobStatus status, String error) {
		return this.ends.finish(lease, status, error);
	}

	/** Gives back a claimed job that never started; the claim does not count as an attempt. */
	@Override
	public boolean release(Lease lease) {
		return this.ends.release(lease);
	}

	/**
	 * Gives back a running job whose instance stopped while it ran and interrupted its handler:
	 * {@code QUEUED} again (or {@code CANCELLED} when its cancel was asked for), with
	 * {@code error} as its last error, the attempt not spent and no crash counted. Fenced.
	 */
	@Override
	public boolean giveBackStopped(Lease lease, String error) {
		return this.ends.giveBackStopped(lease, error);
	}

	/**
	 * Notes that this instance stopped while the handlers of these leases still ran (they did
	 * not end when interrupted): when their leases expire, the reaper re-queues their jobs
	 * without counting a crash. In a transaction of its own.
	 */
	public void leaveAtStop(Collection<Lease> leases) {
		if (!leases.isEmpty()) {
			this.transactions.inNewTransaction(() -> {
				this.leases.leaveAtStop(List.copyOf(leases));
				return null;
			});
		}
	}

	/**
	 * Moves the leases' expiry to now plus {@code duration}, in a transaction of its own;
	 * says which it extended, which it passed over (their row was locked by another
	 * transaction, see {@link JobLeases}: their expiry is written beside the row instead, so
	 * they hold as if extended) and which were lost. Never waits for a row lock, and holds one
	 * connection at a time, however many rows others hold.
	 */
	@Override
	public ExtendedLeases extendLeases(Collection<Lease> leases, Duration duration) {
		if (leases.isEmpty()) {
			return ExtendedLeases.NONE;
		}
		// In job id order, as completions are written, so the two never lock rows in opposite orders.
		List<Lease> ordered = leases.stream().sorted(java.util.Comparator.comparingLong(Lease::jobId)).toList();
		Set<Lease> extended = this.transactions.inNewForLeases(this.leaseSql.extendLeases == null,
				() -> this.leases.extend(ordered, duration));
		List<Lease> missed = ordered.stream().filter((lease) -> !extended.contains(lease)).toList();
		Set<Lease> passedOver = missed.isEmpty() ? Set.of() : this.leases.running(missed);
		if (!passedOver.isEmpty()) {
			List<Lease> beside = ordered.stream().filter(passedOver::contains).toList();
			this.transactions.inNewTransaction(() -> {
				this.leases.extendBeside(beside, duration);
				return null;
			});
		}
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
	@Override
	public List<ReapedJob> reapExpired(int limit, int maxCrashes) {
		List<ReapedJob> reaped = this.ends.reapExpired(limit, maxCrashes);
		if (this.transactions.rowLocks()) {
			// Only where rows can be passed over are leases extended beside them.
			this.transactions.inNewTransaction(this.leases::dropEndedExtensions);
		}
		return reaped;
	}

	/**
	 * Cancels up to {@code limit} queued jobs whose deadline passed; returns them. Safe to
	 * run from any number of instances at once. A job whose end cannot be written or settled
	 * is left for the next pass (and logged); it never holds back the others.
	 */
	@Override
	public List<ExpiredJob> expirePassedDeadlines(int limit) {
		return this.ends.expirePassedDeadlines(limit);
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
	@Override
	public boolean requestCancel(long id) {
		boolean requested = isThere(id) && this.jdbc.update(this.endSql.requestCancel, id) == 1;
		if (requested) {
			this.ends.announceCancel(id);
		}
		return requested;
	}

	/**
	 * Notes that someone awaits the job, where finishing jobs are announced: a completion
	 * flush then announces it. Its own transaction, so that it counts even while the caller's
	 * is open. Does nothing without notifications, where waiters read the job at intervals.
	 */
	@Override
	public void markAwaited(long id) {
		if (this.notifyChannel != null) {
			this.transactions.inNewTransaction(() -> this.jdbc.update(this.endSql.markAwaited, id));
		}
	}

	/** Of these running jobs, the ones whose cancel was asked for. */
	@Override
	public Set<Long> cancelRequested(Collection<Long> ids) {
		if (ids.isEmpty()) {
			return Set.of();
		}
		Set<Long> requested = new HashSet<>();
		for (Object[] chunk : IdChunks.of(ids)) {
			requested.addAll(this.jdbc.queryForList(this.readSql.cancelRequested(chunk.length), Long.class, chunk));
		}
		return requested;
	}

	/**
	 * The jobs of these ids, as stored now (fewer when some do not exist), without their
	 * labels: for the awaiters' polls, which read states only.
	 */
	@Override
	public List<JobRecord> findAll(Collection<Long> ids) {
		List<JobRecord> found = new ArrayList<>();
		for (Object[] chunk : IdChunks.of(ids)) {
			found.addAll(this.jdbc.query(this.readSql.findAll(chunk.length), jobRows(), chunk));
		}
		return found;
	}

	/** The job of this id as stored now, with its labels. */
	@Override
	public Optional<JobRecord> find(long id) {
		return this.labels.withLabels(this.jdbc.query(this.readSql.find, jobRows(), id)).stream().findFirst();
	}

	/**
	 * Cancels a {@code QUEUED} or {@code WAITING} job, and settles what it ends (its
	 * dependents, its batch); false when there is no such job or it is in another state.
	 */
	@Override
	public boolean cancel(long id) {
		return isThere(id) && this.ends.cancel(id);
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
	 * <p>
	 * SQLite is not asked: it locks the whole file to write, so there is no gap to lock, and
	 * a transaction that began with this read would fail at its write (SQLITE_BUSY_SNAPSHOT,
	 * at once) whenever another connection had written in between, as a background loop
	 * does every second. Begun with the write, it waits its turn for the lock.
	 */
	private boolean isThere(long id) {
		return !this.transactions.callerHasOne() || this.sql.writeLockFirst != null
				|| !this.jdbc.queryForList(this.readSql.exists, Integer.class, id).isEmpty();
	}

	/**
	 * Queues a {@code FAILED} job again with a fresh set of attempts; false when it is not
	 * failed. Inside a caller's transaction (an operator's audited retry runs in one) the
	 * update runs under a savepoint: on PostgreSQL a unique key that an unfinished job holds
	 * fails the statement, and without the savepoint that failure would abort the caller's
	 * whole transaction, its own writes and the read that names the key included.
	 */
	@Override
	public boolean retryFailed(long id) {
		try {
			if (!isThere(id)) {
				return false;
			}
			return this.transactions.callerHasOne()
					? this.transactions.inSavepoint(() -> this.jdbc.update(this.endSql.retryFailed, id) == 1)
					: this.jdbc.update(this.endSql.retryFailed, id) == 1;
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
	@Override
	public List<Long> retryAllFailed(@Nullable String queue, @Nullable String handler, int limit) {
		List<Long> ids = this.jdbc.queryForList(this.endSql.failedJobs, Long.class,
				new SqlParameterValue(Types.VARCHAR, queue), new SqlParameterValue(Types.VARCHAR, handler), limit);
		List<Long> retried = new ArrayList<>(ids.size());
		for (long id : ids) {
			try {
				if (this.jdbc.update(this.endSql.retryFailed, id) == 1) {
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
	@Override
	public List<Backlog> dueBacklog() {
		return this.jdbc.query(this.readSql.dueBacklog, (rs, row) -> {
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
	@Override
	public Optional<JobRecord> claimById(long id, String owner, long leaseMillis) {
		long token = ThreadLocalRandom.current().nextLong();
		return this.transactions.inCallerOrNewReadCommitted(() -> {
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
	@Override
	public int makeDue(Collection<String> handlers) {
		if (handlers.isEmpty()) {
			return 0;
		}
		return this.jdbc.update(this.sql.makeDue(handlers.size()), handlers.toArray());
	}

	/** Up to {@code limit} jobs of this handler in this state, oldest (lowest id) first. */
	@Override
	public List<JobRecord> findByHandler(String handler, JobStatus status, int limit) {
		return this.jdbc.query(this.readSql.findByHandler, jobRows(), handler, status.name(), limit);
	}

	/** One statement per item, sent in one round trip; the update count per item. */
	static <T> int[] batch(JdbcTemplate jdbc, String statement, List<T> items,
			ParameterizedPreparedStatementSetter<T> setter) {
		if (items.isEmpty()) {
			return new int[0];
		}
		return jdbc.batchUpdate(statement, items, items.size(), setter)[0];
	}

	/**
	 * Whether nothing but the queue itself will reclaim the table's dead rows: on
	 * PostgreSQL, when autovacuum is off for the server or the table. Every claim and
	 * completion leaves a dead row version behind, so such a table would grow without end.
	 */
	@Override
	public boolean needsOwnVacuum() {
		String query = this.dialect.unvacuumedQuery();
		return query != null && Boolean.TRUE.equals(this.jdbc.queryForObject(query, Boolean.class, this.sql.tableName));
	}

	/**
	 * Reclaims the tables' dead rows where the database needs to be told ({@code VACUUM} on
	 * PostgreSQL): one statement over every table; on a schema older than the code
	 * ({@code sqlqueue.migrate=false}, a table of the list not created yet) that statement
	 * fails whole, so each table is then vacuumed on its own and the missing ones passed over.
	 * <p>
	 * Not while the horizon stays where it was at this store's last vacuum (the same oldest
	 * transaction holds it): every row that died since died after that transaction began, so
	 * nothing has become reclaimable, and a vacuum would read every page of tables that grow
	 * by the minute under load (seconds of the database's time each minute) to reclaim nothing.
	 */
	@Override
	public boolean vacuum() {
		if (this.bulkSql.vacuum == null) {
			return false;
		}
		String horizon = horizon();
		if (horizon != null && horizon.equals(this.horizonAtLastVacuum)) {
			logger.debug("sqlqueue did not vacuum: transaction {} still holds the horizon, as at the last vacuum",
					horizon);
			return false;
		}
		try {
			this.jdbc.execute(this.bulkSql.vacuum);
		}
		catch (BadSqlGrammarException ex) {
			for (String statement : this.bulkSql.vacuumEach) {
				try {
					this.jdbc.execute(statement);
				}
				catch (BadSqlGrammarException missing) {
					logger.debug("sqlqueue passed over a table its schema does not have: {}", statement, missing);
				}
			}
		}
		this.horizonAtLastVacuum = horizon;
		return true;
	}

	/**
	 * The horizon's oldest transaction, or {@code null} where none holds it or it cannot be
	 * read: a role that may vacuum but not read one of the views must not stop the vacuum.
	 */
	private @Nullable String horizon() {
		if (this.bulkSql.horizon == null) {
			return null;
		}
		try {
			List<String> oldest = this.jdbc.queryForList(this.bulkSql.horizon, String.class);
			return oldest.isEmpty() ? null : oldest.get(0);
		}
		catch (DataAccessException ex) {
			logger.debug("sqlqueue could not read the horizon; vacuuming all the same", ex);
			return null;
		}
	}

	/**
	 * The health of the queue's tables, read now by this database's {@link TableHealthReader}:
	 * catalog and statistics reads only, meant for a schedule rather than for every look. In a
	 * transaction of its own whose lock waits are bounded by {@link #OWN_LOCK_WAIT}: PostgreSQL's
	 * size functions take a table's {@code ACCESS SHARE} lock, which waits behind DDL, a
	 * {@code LOCK TABLE} or a {@code VACUUM FULL} on it; past the bound the reading fails, to be
	 * taken again at the next pass.
	 */
	@Override
	public TableHealth tableHealth() {
		return this.transactions.inNewTransaction(() -> {
			Runnable reset = this.dialect.boundLockWaits(this.jdbc, OWN_LOCK_WAIT);
			try {
				return this.tableHealth.read();
			}
			finally {
				if (reset != null) {
					reset.run();
				}
			}
		});
	}

	/**
	 * Jobs per queue and status, with the age of each queue's oldest due job, by this
	 * database's {@link QueueCounter}: meant for a schedule rather than for every look.
	 */
	@Override
	public List<QueueCount> countsByQueue() {
		return this.counter.count();
	}

	/**
	 * Jobs per queue and status by one grouped query over the whole table, exactly: what
	 * {@link #countsByQueue()} runs where its counter reads the table whole (small tables,
	 * every database but PostgreSQL), and what the benchmark times the counter against.
	 */
	public List<QueueCount> countAll() {
		return this.jdbc.query(this.readSql.countsByQueue, (rs, row) -> {
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
	 * {@code age} ago, the oldest first; returns how many. Touches only finished rows, so claims never wait
	 * for it. Where the database has {@code SKIP LOCKED}, it locks them first (READ COMMITTED,
	 * so MySQL takes no gap locks) and passes over rows another transaction holds: a caller's
	 * open transaction that enqueued a job after a finished one holds that row, and waiting
	 * for it would stop every later pass of the pruner until that transaction ends.
	 */
	@Override
	public int pruneFinished(JobStatus status, Duration age, int limit) {
		return pruneFinished(status, age, null, limit).count();
	}

	/**
	 * As {@link #pruneFinished(JobStatus, Duration, int)}, reading from {@code from} (a
	 * finished_at) on where that is not null: where the last batch of the same pass ended.
	 * While a long transaction holds the database's horizon, the oldest entries of the
	 * finished jobs' index are those of every job deleted since, dead but not removable, and a
	 * pass whose every batch read from the oldest walked them all again: its cost grew with the
	 * square of the jobs it deleted. A job skipped before {@code from} (held by another
	 * transaction, or committed late with an earlier finished_at) is the next pass's, which
	 * starts from the oldest.
	 */
	public PrunedJobs pruneFinished(JobStatus status, Duration age, @Nullable Instant from, int limit) {
		if (!status.isFinished()) {
			throw new IllegalArgumentException("Only finished jobs are pruned, not " + status);
		}
		boolean lock = this.transactions.rowLocks();
		String statement = (from == null) ? (lock ? this.bulkSql.lockFinishedBefore : this.bulkSql.finishedBefore)
				: (lock ? this.bulkSql.lockFinishedFrom : this.bulkSql.finishedFrom);
		// The jobs and their attempts in one transaction: no attempt outlives its job.
		PrunedJobs pruned = this.transactions.inCallerOrNewReadCommitted(() -> prune(statement, status, age, from, limit));
		return (pruned != null) ? pruned : new PrunedJobs(0, from);
	}

	private PrunedJobs prune(String finishedBefore, JobStatus status, Duration age, @Nullable Instant from, int limit) {
		takeWriteLockFirst();
		List<Long> ids = new ArrayList<>(limit);
		Instant[] last = { from };
		this.jdbc.query(finishedBefore, (ps) -> {
			int index = 1;
			ps.setString(index++, status.name());
			if (from != null) {
				this.dialect.setTimestamp(ps, index++, from);
			}
			ps.setLong(index++, -age.toMillis());
			ps.setInt(index, limit);
		}, (rs) -> {
			ids.add(rs.getLong(1));
			last[0] = this.dialect.getTimestamp(rs, 2);
		});
		int[] counts = batch(this.jdbc, this.bulkSql.deleteFinished, ids, (ps, id) -> {
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
		this.attempts.forget(deleted);
		this.labels.forget(deleted);
		this.steps.forget(deleted);
		return new PrunedJobs(deleted.size(), last[0]);
	}

	/**
	 * Cancels the {@code QUEUED} or {@code WAITING} jobs among these ids (at most
	 * {@link IdChunks#MAX}) whose end settles nothing (no dependents, no batch), in one short
	 * transaction: where the database has {@code SKIP LOCKED} it locks them first and passes
	 * over rows another transaction holds (a claim taking them); where it has not, it takes
	 * the write lock first. Returns the jobs it cancelled; the others are for
	 * {@link #cancel(long)} and {@link #requestCancel(long)}, one by one.
	 */
	public List<CancelledJob> cancelPlain(Collection<Long> ids) {
		Object[] chunk = oneChunk(ids);
		if (chunk.length == 0) {
			return List.of();
		}
		boolean lock = this.transactions.rowLocks();
		List<CancelledJob> cancelled = this.transactions.inCallerOrNewReadCommitted(() -> {
			takeWriteLockFirst();
			List<CancelledJob> plain = this.jdbc.query(this.endSql.plainQueuedAmong(chunk.length, lock),
					(rs, row) -> new CancelledJob(rs.getLong(1), rs.getString(2), rs.getString(3)), chunk);
			if (plain.isEmpty()) {
				return List.<CancelledJob>of();
			}
			Object[] held = IdChunks.of(plain.stream().map(CancelledJob::id).toList()).get(0);
			int changed = this.jdbc.update(this.endSql.cancelPlainAmong(held.length), held);
			if (changed != plain.size()) {
				// Only where rows cannot be locked, and the write lock came first: never expected.
				throw new IllegalStateException("Cancelled " + changed + " of " + plain.size() + " jobs read as queued");
			}
			this.ends.notifyFinished(plain.stream().map(CancelledJob::id).toList());
			return plain;
		});
		return (cancelled != null) ? cancelled : List.of();
	}

	/**
	 * On SQLite, takes the write lock as the transaction's first statement: a transaction that
	 * began with a read fails at its first write, at once (SQLITE_BUSY_SNAPSHOT, the busy
	 * timeout does not help), when another connection wrote in between, as the queue's own
	 * loops do all the time; one that begins with a write waits its turn. Elsewhere, nothing.
	 */
	private void takeWriteLockFirst() {
		if (this.sql.writeLockFirst != null) {
			this.jdbc.update(this.sql.writeLockFirst);
		}
	}

	/** These ids as the parameters of one statement; refused when they need more than one. */
	private static Object[] oneChunk(Collection<Long> ids) {
		List<Object[]> chunks = IdChunks.of(ids);
		if (chunks.size() > 1) {
			throw new IllegalArgumentException("At most " + IdChunks.MAX + " ids at once, not " + ids.size());
		}
		return chunks.isEmpty() ? new Object[0] : chunks.get(0);
	}

	/**
	 * Deletes the finished jobs among these ids (at most {@link IdChunks#MAX} of them) in one
	 * short transaction, as the pruner does: where the database has {@code SKIP LOCKED} it
	 * locks them first, passing over rows another transaction holds; a job not finished is
	 * never deleted. Returns the ids it deleted, with their attempts, labels and links.
	 */
	public List<Long> deleteFinished(Collection<Long> ids) {
		Object[] chunk = oneChunk(ids);
		if (chunk.length == 0) {
			return List.of();
		}
		boolean lock = this.transactions.rowLocks();
		List<Long> deleted = this.transactions.inCallerOrNewReadCommitted(() -> {
			takeWriteLockFirst();
			List<Long> finished = this.jdbc.queryForList(this.bulkSql.finishedAmong(chunk.length, lock), Long.class,
					chunk);
			if (finished.isEmpty()) {
				return List.<Long>of();
			}
			Object[] held = IdChunks.of(finished).get(0);
			this.jdbc.update(this.bulkSql.deleteFinishedAmong(held.length), held);
			this.workflows.forget(finished);
			this.attempts.forget(finished);
			this.labels.forget(finished);
			this.steps.forget(finished);
			return finished;
		});
		return (deleted != null) ? deleted : List.of();
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
	@Override
	public int pruneBatches(Duration age) {
		// As pruneFinished: locked first, passing over a batch another transaction holds.
		Integer pruned = this.transactions
			.inCallerOrNewReadCommitted(() -> this.workflows.pruneBatches(age, BATCHES_PRUNED));
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

}
