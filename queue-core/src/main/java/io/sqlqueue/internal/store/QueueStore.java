package io.sqlqueue.internal.store;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.ExpiredJob;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.ReapedJob;
import io.sqlqueue.admin.TableHealth;

/**
 * The one seam between the queue and its database: every verb the queue, its Manager, its
 * maintenance loops and its operators run, entity by entity; records in, records out. A verb
 * runs in the caller's transaction when the caller has one on the queue's data source
 * (Spring's {@code DataSourceUtils}), so that an enqueue commits with the caller, unless it
 * says it never joins one (the queue's own writes: completions, leases, sweeps); else in its
 * own short transaction. A claim never leaves a transaction open. Which transaction each verb
 * runs in is the JDBC implementation's policy, in one place ({@code StoreTransactions}).
 * <p>
 * {@link JobStore} is the JDBC implementation, and only assembles it: it builds every part once
 * on one {@code StoreContext} (one template, one transaction policy, the dialect), the stores
 * this seam hands out ({@link #flows()}, {@link #schedules()}, {@link #workflows()},
 * {@link #browser()}, …) among them, and hands each verb to one part; the claim of a limited
 * queue uses the same {@link FlowStore} as flow control does. The verbs below are grouped by
 * entity, in the order {@link JobStore} implements them.
 */
public interface QueueStore {

	// The database

	Dialect dialect();

	/** How this store claims jobs of queues without limits. */
	ClaimMethod claimMethod();

	/** Why this database cannot store the JSON text, or {@code null} when it can. */
	@Nullable String whyNotStorable(String json);

	// Jobs: insert

	/** Inserts the jobs, all or nothing; returns their ids in order. */
	List<Long> insert(List<NewJob> jobs);

	/** Inserts jobs with their links (dependencies, a batch), all or nothing. */
	LinkedIds insert(LinkedJobs jobs);

	// Jobs: claim

	/** Claims due jobs for the request's owner, in the order they should run. */
	List<JobRecord> claim(ClaimRequest request);

	/** Claims as {@link #claim} does, and says what held due jobs back when the queue has limits. */
	ClaimResult claimJobs(ClaimRequest request);

	/** Claims the queued job of this id, due or not (the test kit's "run this job now"). */
	Optional<JobRecord> claimById(long id, String owner, long leaseMillis);

	// Jobs: complete

	/** Marks the jobs {@code SUCCEEDED}, waiting for rows another transaction holds; per job, whether its lease held. */
	boolean[] complete(List<Completion> completions);

	/** Marks the jobs {@code SUCCEEDED} in one round trip, passing over rows another transaction holds. */
	CompletedJobs completeUnlessHeld(List<Completion> completions);

	/** Runs a transactional handler's work in one transaction, in which {@link #completeWhileLeased} completes it. */
	<T> T inTransaction(Supplier<T> work);

	/** Marks the job {@code SUCCEEDED} if its lease still holds now; within {@link #inTransaction}. */
	boolean completeWhileLeased(Completion completion);

	/** The leases whose job ended under them: their write landed, even if its answer was lost. */
	Set<Lease> finishedUnder(Collection<Lease> leases);

	// Jobs: end an attempt otherwise

	/** Puts the job back to wait {@code delay} before its next attempt. */
	boolean reschedule(Lease lease, String error, Duration delay);

	/** Marks the job {@code FAILED} for good. */
	boolean fail(Lease lease, String error);

	/** Marks the running job {@code CANCELLED}. */
	boolean cancelRunning(Lease lease, String reason);

	/** Gives back a claimed job that never started. */
	boolean release(Lease lease);

	/** Gives back a running job whose instance stopped and interrupted its handler; no attempt spent. */
	boolean giveBackStopped(Lease lease, String error);

	// Leases

	/** Moves the leases' expiry to now plus {@code duration}, in a transaction of its own. */
	ExtendedLeases extendLeases(Collection<Lease> leases, Duration duration);

	/** Re-queues, fails or cancels up to {@code limit} jobs whose lease expired. */
	List<ReapedJob> reapExpired(int limit, int maxCrashes);

	// Deadlines and cancels

	/** Cancels up to {@code limit} queued jobs whose deadline passed. */
	List<ExpiredJob> expirePassedDeadlines(int limit);

	/** Cancels a {@code QUEUED} or {@code WAITING} job, and settles what it ends. */
	boolean cancel(long id);

	/** Asks the instance that runs the job to stop it. */
	boolean requestCancel(long id);

	/** Of these running jobs, the ones whose cancel was asked for. */
	Set<Long> cancelRequested(Collection<Long> ids);

	/** Notes that someone awaits the job, where finishing jobs are announced. */
	void markAwaited(long id);

	// Jobs: read

	Optional<JobRecord> find(long id);

	/** The jobs of these ids, as stored now. */
	List<JobRecord> findAll(Collection<Long> ids);

	/** Up to {@code limit} jobs of this handler in this state, oldest first. */
	List<JobRecord> findByHandler(String handler, JobStatus status, int limit);

	/** Due jobs per queue and handler, with the age of the oldest. */
	List<Backlog> dueBacklog();

	/** Jobs per queue and status, with the age of each queue's oldest due job. */
	List<QueueCount> countsByQueue();

	// Jobs: operators

	/** Queues a {@code FAILED} job again with a fresh set of attempts. */
	boolean retryFailed(long id);

	/** Queues up to {@code limit} {@code FAILED} jobs again, oldest first; returns their ids. */
	List<Long> retryAllFailed(@Nullable String queue, @Nullable String handler, int limit);

	/** Makes the delayed queued jobs of these handlers due now (for tests). */
	int makeDue(Collection<String> handlers);

	// Maintenance

	/** Deletes up to {@code limit} jobs in this finished state that finished longer than {@code age} ago. */
	int pruneFinished(JobStatus status, Duration age, int limit);

	/** Deletes the batches that finished longer than {@code age} ago. */
	int pruneBatches(Duration age);

	/** Whether nothing but the queue itself will reclaim the table's dead rows. */
	boolean needsOwnVacuum();

	/**
	 * Reclaims the tables' dead rows where the database needs to be told, unless nothing has
	 * become reclaimable since the last time; returns whether it vacuumed.
	 */
	boolean vacuum();

	/** Reads the health of the queue's own tables now, from the database's catalogs (never a scan of a table). */
	TableHealth tableHealth();

	// Workflows, flows, schedules, browsing: the sub-stores, built once

	/** Workflows: what links jobs (dependencies, batches), and where a job stands in one. */
	WorkflowStore workflows();

	/** Told what settling jobs' ends did (jobs released, jobs cancelled), after it commits. */
	void addSettleListener(SettleListener listener);

	void removeSettleListener(SettleListener listener);

	/** Flow control's limits and windows; the same store the claim of a limited queue uses. */
	FlowStore flows();

	/** Recurring jobs' schedules. */
	ScheduleStore schedules();

	/** The dashboard's and the endpoint's reads of jobs. */
	JobBrowser browser();

	/** What the instances share beyond jobs: the paused queues and the instances' rows. */
	ClusterStore cluster();

	/** The attempts of jobs as the database keeps them. */
	AttemptHistory attempts();

	/** The audit log of operator actions. */
	AuditLog audit();

}
