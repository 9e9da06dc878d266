package io.sqlqueue.internal.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

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
 * transaction open.
 * <p>
 * It is the assembly and nothing else: it builds every part once, on one
 * {@link StoreContext} (one template, one transaction policy, one dialect), and hands each
 * verb to its part; no part knows the store. The jobs' parts, by entity and use:
 * {@link JobInserts}, {@link JobClaims} (and flow control's {@link LimitedClaim} on the same
 * {@link FlowStore} as {@link #flows()} gives), {@link JobCompletions}, {@link JobEnds},
 * {@link JobLeases}, {@link JobReads}, {@link OperatorWrites}, {@link BulkJobWrites} and
 * {@link TableUpkeep}; beside them the stores of flows, schedules, workflows, durable steps,
 * the cluster, attempts, the audit log and browsing. What it decides itself: which
 * transaction an insert, a claim or a lease's extension runs in, and a claim's retry after
 * a lost race.
 */
public class JobStore implements QueueStore {

	/** See {@link StoreTransactions#OWN_LOCK_WAIT}; docs/locking.md. */
	public static final Duration OWN_LOCK_WAIT = StoreTransactions.OWN_LOCK_WAIT;

	private final Dialect dialect;

	private final ClaimMethod claimMethod;

	/** Every transaction a verb runs in, by name. */
	private final StoreTransactions transactions;

	private final JobInserts inserts;

	/** Every claim: of a queue without limits, and flow control's of one with limits, on {@link #flows}. */
	private final QueueClaims claims;

	private final JobCompletions completions;

	private final JobEnds ends;

	private final JobLeases leases;

	private final JobReads reads;

	private final OperatorWrites operators;

	private final BulkJobWrites bulk;

	private final TableUpkeep upkeep;

	private final WorkflowStore workflows;

	private final FlowStore flows;

	private final ScheduleStore schedules;

	private final JobBrowser browser;

	private final StepStore steps;

	private final ClusterStore cluster;

	private final AttemptHistory attempts;

	private final AuditLog audit;

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
		if (!dialect.supports(claimMethod)) {
			throw new IllegalArgumentException(dialect + " cannot claim with " + claimMethod);
		}
		this.dialect = dialect;
		this.claimMethod = claimMethod;
		StoreContext context = StoreContext.on(dataSource, dialect);
		JdbcTemplate jdbc = context.jdbc();
		this.transactions = context.transactions();
		JobSql sql = new JobSql(dialect, schema);
		JobEndSql endSql = new JobEndSql(dialect, schema);
		LeaseSql leaseSql = new LeaseSql(dialect, schema);
		JobReadSql readSql = new JobReadSql(dialect, schema);
		JobBulkSql bulkSql = new JobBulkSql(dialect, schema);
		WorkAnnouncer announcer = (notifyChannel != null)
				? new WorkAnnouncer(dataSource, dialect.notifyStatement(), notifyChannel) : null;
		JobLabels labels = new JobLabels(jdbc, dialect, schema);
		this.inserts = new JobInserts(jdbc, sql, dialect, announcer, labels);
		this.flows = new FlowStore(context, sql, schema, notifyChannel);
		this.schedules = new ScheduleStore(context, schema);
		this.browser = new JobBrowser(context, schema);
		this.cluster = new ClusterStore(context, schema);
		this.workflows = new WorkflowStore(jdbc, dialect, schema);
		this.leases = new JobLeases(context, leaseSql);
		this.attempts = new AttemptHistory(jdbc, dialect, schema);
		this.audit = new AuditLog(context, schema);
		this.steps = new StepStore(jdbc, dialect, this.transactions, announcer, sql.tableName, schema);
		this.ends = new JobEnds(context, endSql, leaseSql, this.workflows, this.attempts, notifyChannel, announcer);
		this.completions = new JobCompletions(context, endSql, this.workflows, this.leases, this.ends, this.attempts);
		this.reads = new JobReads(context, readSql, labels, sql.tableName);
		this.claims = new QueueClaims(context, sql,
				new JobClaims(context, sql, claimMethod),
				limitedClaims.create(this.flows), this.reads::find);
		this.operators = new OperatorWrites(context, sql, endSql, readSql, this.reads, this.ends,
				notifyChannel);
		this.bulk = new BulkJobWrites(context, bulkSql, endSql, sql.writeLockFirst, this.workflows,
				this.attempts, labels, this.steps, this.ends);
		this.upkeep = new TableUpkeep(context, bulkSql, sql.tableName,
				dialect.tableHealthReader(jdbc, Names.requireSchema(schema)));
	}

	// The database

	@Override
	public Dialect dialect() {
		return this.dialect;
	}

	@Override
	public ClaimMethod claimMethod() {
		return this.claimMethod;
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
	 * Runs {@code work} with the caller's transaction on the queue's data source, if any,
	 * suspended: the store's verbs inside start transactions of their own (a bulk action's
	 * chunks, which must not hold their locks until the caller commits, nor roll back with it).
	 */
	public <T> T outsideCallerTransaction(Supplier<T> work) {
		return this.transactions.outsideCaller(work);
	}

	// Jobs: insert

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

	// Jobs: claim

	/** See {@link QueueClaims#claim}. */
	@Override
	public List<JobRecord> claim(ClaimRequest request) {
		return claimJobs(request).jobs();
	}

	/** See {@link QueueClaims#claim}. */
	@Override
	public ClaimResult claimJobs(ClaimRequest request) {
		return this.claims.claim(request);
	}

	/** See {@link QueueClaims#claimById}. */
	@Override
	public Optional<JobRecord> claimById(long id, String owner, long leaseMillis) {
		return this.claims.claimById(id, owner, leaseMillis);
	}

	// Jobs: complete

	/** See {@link JobCompletions#complete}. */
	@Override
	public boolean[] complete(List<Completion> completions) {
		return this.completions.complete(completions);
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
	 * write lock first: the work would then hold the database's one write lock for its whole
	 * run, and a handler that hangs would stop every writer of every instance, its own reaper
	 * included. A handler that reads before it writes may fail at its write instead, and is
	 * retried (docs/databases.md).
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

	/** See {@link JobReads#finishedUnder}. */
	@Override
	public Set<Lease> finishedUnder(Collection<Lease> leases) {
		return this.reads.finishedUnder(leases);
	}

	// Jobs: end an attempt otherwise

	/** Puts the job back to wait {@code delay} (on the database's clock) before its next attempt. */
	@Override
	public boolean reschedule(Lease lease, String error, Duration delay) {
		return this.ends.reschedule(lease, error, delay.toMillis());
	}

	/** Marks the job {@code FAILED} for good, with its last error. */
	@Override
	public boolean fail(Lease lease, String error) {
		return this.ends.finish(lease, JobStatus.FAILED, error);
	}

	/**
	 * Marks the running job {@code CANCELLED}, with the reason as its last error: its cancel
	 * was asked for, or its deadline passed before it could start.
	 */
	@Override
	public boolean cancelRunning(Lease lease, String reason) {
		return this.ends.finish(lease, JobStatus.CANCELLED, reason);
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

	// Leases

	/** See {@link JobLeases#leaveAtStop}. */
	public void leaveAtStop(Collection<Lease> leases) {
		this.leases.leaveAtStop(leases);
	}

	/** See {@link JobLeases#extendAll}. */
	@Override
	public ExtendedLeases extendLeases(Collection<Lease> leases, Duration duration) {
		return this.leases.extendAll(leases, duration);
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
		this.leases.dropEndedExtensions();
		return reaped;
	}

	// Deadlines and cancels

	/**
	 * Cancels up to {@code limit} queued jobs whose deadline passed; returns them. Safe to
	 * run from any number of instances at once. A job whose end cannot be written or settled
	 * is left for the next pass (and logged); it never holds back the others.
	 */
	@Override
	public List<ExpiredJob> expirePassedDeadlines(int limit) {
		return this.ends.expirePassedDeadlines(limit);
	}

	/** See {@link OperatorWrites#cancel}. */
	@Override
	public boolean cancel(long id) {
		return this.operators.cancel(id);
	}

	/** See {@link OperatorWrites#requestCancel}. */
	@Override
	public boolean requestCancel(long id) {
		return this.operators.requestCancel(id);
	}

	/** See {@link JobReads#cancelRequested}. */
	@Override
	public Set<Long> cancelRequested(Collection<Long> ids) {
		return this.reads.cancelRequested(ids);
	}

	/** See {@link OperatorWrites#markAwaited}. */
	@Override
	public void markAwaited(long id) {
		this.operators.markAwaited(id);
	}

	// Jobs: read

	/** See {@link JobReads#find}. */
	@Override
	public Optional<JobRecord> find(long id) {
		return this.reads.find(id);
	}

	/** See {@link JobReads#findAll}. */
	@Override
	public List<JobRecord> findAll(Collection<Long> ids) {
		return this.reads.findAll(ids);
	}

	/** See {@link JobReads#findByHandler}. */
	@Override
	public List<JobRecord> findByHandler(String handler, JobStatus status, int limit) {
		return this.reads.findByHandler(handler, status, limit);
	}

	/** See {@link JobReads#dueBacklog}. */
	@Override
	public List<Backlog> dueBacklog() {
		return this.reads.dueBacklog();
	}

	/** See {@link JobReads#countsByQueue}. */
	@Override
	public List<QueueCount> countsByQueue() {
		return this.reads.countsByQueue();
	}

	/** See {@link JobReads#countAll}: what the benchmark times the counter against. */
	public List<QueueCount> countAll() {
		return this.reads.countAll();
	}

	// Jobs: operators

	/** See {@link OperatorWrites#retryFailed}. */
	@Override
	public boolean retryFailed(long id) {
		return this.operators.retryFailed(id);
	}

	/** See {@link OperatorWrites#retryAllFailed}. */
	@Override
	public List<Long> retryAllFailed(@Nullable String queue, @Nullable String handler, int limit) {
		return this.operators.retryAllFailed(queue, handler, limit);
	}

	/** See {@link OperatorWrites#makeDue}. */
	@Override
	public int makeDue(Collection<String> handlers) {
		return this.operators.makeDue(handlers);
	}

	/** See {@link BulkJobWrites#cancelPlain}; for {@link #cancel} and {@link #requestCancel} are the others. */
	public List<CancelledJob> cancelPlain(Collection<Long> ids) {
		return this.bulk.cancelPlain(ids);
	}

	/** See {@link BulkJobWrites#deleteFinished}. */
	public List<Long> deleteFinished(Collection<Long> ids) {
		return this.bulk.deleteFinished(ids);
	}

	// Maintenance

	/** See {@link BulkJobWrites#pruneFinished}, from the oldest. */
	@Override
	public int pruneFinished(JobStatus status, Duration age, int limit) {
		return pruneFinished(status, age, null, limit).count();
	}

	/** See {@link BulkJobWrites#pruneFinished}. */
	public PrunedJobs pruneFinished(JobStatus status, Duration age, @Nullable Instant from, int limit) {
		return this.bulk.pruneFinished(status, age, from, limit);
	}

	/** See {@link BulkJobWrites#pruneBatches}. */
	@Override
	public int pruneBatches(Duration age) {
		return this.bulk.pruneBatches(age);
	}

	/** See {@link TableUpkeep#needsOwnVacuum}. */
	@Override
	public boolean needsOwnVacuum() {
		return this.upkeep.needsOwnVacuum();
	}

	/** See {@link TableUpkeep#vacuum}. */
	@Override
	public boolean vacuum() {
		return this.upkeep.vacuum();
	}

	/** See {@link TableUpkeep#tableHealth}. */
	@Override
	public TableHealth tableHealth() {
		return this.upkeep.tableHealth();
	}

	// Workflows, flows, schedules, the cluster, history: the sub-stores, built once

	@Override
	public WorkflowStore workflows() {
		return this.workflows;
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

}
