package io.sqlqueue.internal.admin;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.DuplicateJobException;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.Names;
import io.sqlqueue.admin.AdminResult;
import io.sqlqueue.admin.AuditEntry;
import io.sqlqueue.admin.BulkAction;
import io.sqlqueue.admin.BulkResult;
import io.sqlqueue.admin.JobAttempt;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.JobPage;
import io.sqlqueue.admin.PausedQueue;
import io.sqlqueue.admin.QueueInstance;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.Refusal;
import io.sqlqueue.admin.RefusedException;
import io.sqlqueue.admin.Staleness;
import io.sqlqueue.admin.TableHealth;
import io.sqlqueue.flow.Fairness;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.RateLimit;
import io.sqlqueue.internal.maintenance.TableHealthMonitor;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.ClusterStore;
import io.sqlqueue.internal.store.InstanceRow;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.ReadStore;
import io.sqlqueue.schedule.ScheduleRecord;
import io.sqlqueue.schedule.Schedules;

/**
 * The operator actions on the {@link JobQueue}, its store, the {@link Schedules} and the
 * {@link FlowControl}, waking this instance's {@link Manager} where an action queues jobs
 * that no enqueue listener hears of. Searches and counts read the {@link ReadStore} (a
 * replica's where there is one); everything else, bulk actions' walks included, the store.
 */
public class DefaultQueueAdmin implements QueueAdmin {

	private final JobQueue jobs;

	private final JobStore store;

	/** Where the searches and counts read: the store's own, or a replica's. */
	private final ReadStore reads;

	private final @Nullable Manager manager;

	private final @Nullable Schedules schedules;

	private final @Nullable FlowControl flowControl;

	private final @Nullable TableHealthMonitor tableHealth;

	/** Who the actions are written to the audit log as done by, or {@code null}. */
	private final @Nullable String actor;

	/** Without a reading of the tables' health: {@link #tableHealth()} says it was never read. */
	public DefaultQueueAdmin(JobQueue jobs, JobStore store, @Nullable Manager manager, @Nullable Schedules schedules,
			@Nullable FlowControl flowControl) {
		this(jobs, store, manager, schedules, flowControl, null);
	}

	/**
	 * @param manager this instance's Manager (woken after a bulk retry or a trigger), or
	 * {@code null} when it runs no jobs
	 * @param schedules the recurring jobs, or {@code null} when there are none
	 * @param flowControl the limits, or {@code null} when there are none
	 * @param tableHealth the periodic reading of the tables' health, or {@code null} when this
	 * instance does not read it (then {@link #tableHealth()} says it was never read)
	 */
	public DefaultQueueAdmin(JobQueue jobs, JobStore store, @Nullable Manager manager, @Nullable Schedules schedules,
			@Nullable FlowControl flowControl, @Nullable TableHealthMonitor tableHealth) {
		this(jobs, store, ReadStore.of(store), manager, schedules, flowControl, tableHealth);
	}

	/**
	 * As {@link #DefaultQueueAdmin(JobQueue, JobStore, Manager, Schedules, FlowControl, TableHealthMonitor)},
	 * with the searches and counts on {@code reads} (a replica's, or {@code store}'s own).
	 */
	public DefaultQueueAdmin(JobQueue jobs, JobStore store, ReadStore reads, @Nullable Manager manager,
			@Nullable Schedules schedules, @Nullable FlowControl flowControl,
			@Nullable TableHealthMonitor tableHealth) {
		this(jobs, store, reads, manager, schedules, flowControl, tableHealth, null);
	}

	private DefaultQueueAdmin(JobQueue jobs, JobStore store, ReadStore reads, @Nullable Manager manager,
			@Nullable Schedules schedules, @Nullable FlowControl flowControl, @Nullable TableHealthMonitor tableHealth,
			@Nullable String actor) {
		this.reads = reads;
		this.actor = actor;
		this.tableHealth = tableHealth;
		this.jobs = jobs;
		this.store = store;
		this.manager = manager;
		this.schedules = schedules;
		this.flowControl = flowControl;
	}

	/** The last reading of the periodic task, never a query of its own. */
	@Override
	public TableHealth tableHealth() {
		return (this.tableHealth != null) ? this.tableHealth.latest()
				: TableHealth.notRead(this.store.dialect().name());
	}

	@Override
	public AdminResult retry(long id) {
		// No read first: on SQLite a caller's transaction that began with a read would fail at
		// the retry's write once another connection wrote. A missing job is told by notInState.
		// Caught inside the transaction, not thrown through it: when the caller has one, the
		// action joins it, and an exception passing through would mark it rollback-only.
		AtomicReference<DuplicateJobException> taken = new AtomicReference<>();
		boolean retried = audited(() -> {
			try {
				return this.jobs.retry(id);
			}
			catch (DuplicateJobException ex) {
				taken.set(ex);
				return false;
			}
		}, () -> log("retry", null, id, null, 1, null));
		if (retried) {
			// The state the retry left, not a later read: a worker may have claimed the job already.
			return AdminResult.done("Job " + id + " is queued again with a fresh set of attempts", JobStatus.QUEUED,
					List.of(id));
		}
		if (taken.get() != null) {
			return AdminResult.refused(Refusal.UNIQUE_KEY_TAKEN, current(id), id, taken.get().getMessage());
		}
		return notInState(Refusal.NOT_FAILED, id);
	}

	@Override
	public AdminResult retryFrom(long id, int record) {
		// As retry, and in its transaction: the records go only if the job is queued again.
		AtomicReference<DuplicateJobException> taken = new AtomicReference<>();
		AtomicInteger records = new AtomicInteger(-1);
		boolean retried = audited(() -> {
			int count = this.store.steps().recordCount(id);
			if (record < 1 || record > count) {
				records.set(count);
				return false;
			}
			try {
				if (!this.jobs.retry(id)) {
					return false;
				}
			}
			catch (DuplicateJobException ex) {
				taken.set(ex);
				return false;
			}
			records.set(this.store.steps().forgetRecordsFrom(id, record));
			return true;
		}, () -> log("retry-from", null, id, null, 1, "from record " + record));
		if (retried) {
			return AdminResult.done("Job " + id + " is queued again with a fresh set of attempts; its records from "
					+ record + " on (" + records.get() + ") are deleted, so its next run " + replays(record - 1)
					+ " and runs on from there", JobStatus.QUEUED, List.of(id));
		}
		if (taken.get() != null) {
			return AdminResult.refused(Refusal.UNIQUE_KEY_TAKEN, current(id), id, taken.get().getMessage());
		}
		JobStatus now = current(id);
		if (now == JobStatus.FAILED && records.get() >= 0) {
			return AdminResult.refused(Refusal.NO_SUCH_RECORD, now, id, records.get(), record);
		}
		return notInState(Refusal.NOT_FAILED, id);
	}

	private static String replays(int kept) {
		return switch (kept) {
			case 0 -> "replays none";
			case 1 -> "replays the one before";
			default -> "replays the " + kept + " before";
		};
	}

	@Override
	public AdminResult cancel(long id) {
		// No read first, as in retry.
		if (!audited(() -> this.jobs.cancel(id), () -> log("cancel", null, id, null, 1, null))) {
			return notInState(Refusal.NOT_CANCELLABLE, id);
		}
		JobStatus now = current(id);
		String message = (now == JobStatus.RUNNING)
				? "Job " + id + " is running: its cancel is asked for, and the instance that runs it stops it"
				: "Job " + id + " is cancelled";
		return AdminResult.done(message, now, List.of(id));
	}

	@Override
	public AdminResult retryFailed(@Nullable String queue, @Nullable String handler, int limit) {
		if (limit < 1 || limit > MAX_BULK) {
			throw new RefusedException(Refusal.BULK_LIMIT, limit);
		}
		List<Long> ids = this.store.retryAllFailed(queue, handler, limit);
		String of = ((queue != null) ? " of queue " + queue : "") + ((handler != null) ? " of handler " + handler : "");
		if (ids.isEmpty()) {
			return AdminResult.refused(Refusal.NO_FAILED_JOBS, null, of);
		}
		// Each job is queued again by a statement of its own, outside any transaction (see
		// JobStore#retryAllFailed): the entry follows them.
		log("retry-failed", queue, null, null, ids.size(), (handler != null) ? "handler " + handler : null);
		if (this.manager != null) {
			this.manager.wakeUp((queue != null) ? Set.of(queue) : this.manager.totalWorkers().keySet());
		}
		return AdminResult.done(ids.size() + " failed job" + ((ids.size() == 1) ? "" : "s") + of + " queued again",
				null, ids);
	}

	@Override
	public JobPage search(JobFilter filter, @Nullable Long before, int limit) {
		return this.reads.olderThan(filter, before, pageSize(limit));
	}

	@Override
	public JobPage searchNewer(JobFilter filter, long after, int limit) {
		return this.reads.newerThan(filter, after, pageSize(limit));
	}

	@Override
	public long count(JobFilter filter) {
		return this.reads.count(filter);
	}

	@Override
	public Staleness readStaleness() {
		return this.reads.staleness();
	}

	@Override
	public BulkResult bulk(BulkAction action, JobFilter filter) {
		// Outside a caller's transaction: its chunks commit as they go (no lock held until the
		// caller commits), and so does the audit entry that records them, just after.
		BulkResult result = this.store.outsideCallerTransaction(() -> {
			BulkResult run = new BulkRun(this.jobs, this.store, BULK_CHUNK).run(action, filter);
			if (run.changed() > 0) {
				log("bulk-" + action.name().toLowerCase(Locale.ROOT), filter.queue(), null, null,
						(int) Math.min(Integer.MAX_VALUE, run.changed()), describe(filter));
			}
			return run;
		});
		if (action == BulkAction.RETRY && result.changed() > 0 && this.manager != null) {
			this.manager.wakeUp((filter.queue() != null) ? Set.of(filter.queue()) : this.manager.totalWorkers().keySet());
		}
		return result;
	}

	/** The filter's conditions as the audit log shows them: {@code queue=mail status=FAILED tags=[a, b]}. */
	private static String describe(JobFilter filter) {
		Map<String, Object> conditions = new LinkedHashMap<>();
		conditions.put("queue", filter.queue());
		conditions.put("handler", filter.handler());
		conditions.put("status", filter.status());
		conditions.put("search", filter.search());
		conditions.put("batch", filter.batch());
		conditions.put("tags", filter.tags().isEmpty() ? null : filter.tags());
		conditions.put("meta", filter.meta().isEmpty() ? null : filter.meta());
		conditions.put("payload", filter.payload().isEmpty() ? null : filter.payload());
		conditions.put("createdFrom", filter.createdFrom());
		conditions.put("createdBefore", filter.createdBefore());
		StringBuilder text = new StringBuilder();
		conditions.forEach((name, value) -> {
			if (value != null) {
				text.append((text.length() > 0) ? " " : "").append(name).append('=').append(value);
			}
		});
		return text.toString();
	}

	private static int pageSize(int limit) {
		if (limit < 1 || limit > MAX_PAGE_SIZE) {
			throw new RefusedException(Refusal.INVALID_FILTER, "a page holds 1 to " + MAX_PAGE_SIZE + " jobs, not "
					+ limit);
		}
		return limit;
	}

	@Override
	public AdminResult triggerSchedule(String name) {
		Optional<ScheduleRecord> schedule = schedule(name);
		if (this.schedules == null || schedule.isEmpty()) {
			return AdminResult.refused(Refusal.NO_SUCH_SCHEDULE, null, name);
		}
		long jobId;
		try {
			jobId = this.schedules.trigger(name);
		}
		catch (IllegalStateException ex) {
			// Its jobs' settings are not stored and this instance lacks the handler, or it kept
			// changing under the trigger: nothing was enqueued.
			return AdminResult.refused(Refusal.NOT_FIRED, null, String.valueOf(ex.getMessage()));
		}
		log("trigger-schedule", null, jobId, name, 1, null);
		if (this.manager != null) {
			this.manager.wakeUp(this.manager.totalWorkers().keySet());
		}
		return AdminResult.done("Schedule '" + name + "' fired job " + jobId, JobStatus.QUEUED, List.of(jobId));
	}

	@Override
	public AdminResult pauseSchedule(String name) {
		Optional<ScheduleRecord> schedule = schedule(name);
		if (this.schedules == null || schedule.isEmpty()) {
			return AdminResult.refused(Refusal.NO_SUCH_SCHEDULE, null, name);
		}
		if (schedule.get().paused() || !this.schedules.pause(name)) {
			return AdminResult.refused(Refusal.ALREADY_PAUSED, null, name);
		}
		log("pause-schedule", null, null, name, 0, null);
		return AdminResult.done("Schedule '" + name + "' is paused", null, List.of());
	}

	@Override
	public AdminResult resumeSchedule(String name) {
		Optional<ScheduleRecord> schedule = schedule(name);
		if (this.schedules == null || schedule.isEmpty()) {
			return AdminResult.refused(Refusal.NO_SUCH_SCHEDULE, null, name);
		}
		if (!schedule.get().paused() || !this.schedules.resume(name)) {
			return AdminResult.refused(Refusal.NOT_PAUSED, null, name);
		}
		log("resume-schedule", null, null, name, 0, null);
		return AdminResult.done("Schedule '" + name + "' fires again from its next tick", null, List.of());
	}

	@Override
	public AdminResult setLimit(String queue, @Nullable String keys, @Nullable Integer concurrency,
			@Nullable String rateLimit) {
		if (this.flowControl == null) {
			return AdminResult.refused(Refusal.NO_LIMITS, null);
		}
		Limit limit;
		try {
			limit = new Limit(concurrency, (rateLimit != null && !rateLimit.isBlank()) ? RateLimit.parse(rateLimit) : null);
		}
		catch (IllegalArgumentException ex) {
			throw invalidLimit(queue, keys, ex);
		}
		return setLimit(queue, keys, limit);
	}

	@Override
	public AdminResult setLimit(String queue, @Nullable String keys, Limit limit) {
		FlowControl flowControl = this.flowControl;
		if (flowControl == null) {
			return AdminResult.refused(Refusal.NO_LIMITS, null);
		}
		try {
			if (keys != null) {
				flowControl.setKeyLimit(queue, keys, limit);
			}
			else {
				flowControl.setLimit(queue, limit);
			}
		}
		catch (IllegalArgumentException ex) {
			throw invalidLimit(queue, keys, ex);
		}
		log("set-limit", queue, null, null, 0, ((keys != null) ? "keys " + keys + ": " : "") + limit);
		return AdminResult.done("Limit of " + where(queue, keys) + " is " + limit, null, List.of());
	}

	@Override
	public AdminResult removeLimit(String queue, @Nullable String keys) {
		FlowControl flowControl = this.flowControl;
		if (flowControl == null) {
			return AdminResult.refused(Refusal.NO_LIMITS, null);
		}
		boolean removed;
		try {
			removed = (keys != null) ? flowControl.removeKeyLimit(queue, keys) : flowControl.removeLimit(queue);
		}
		catch (IllegalArgumentException ex) {
			throw invalidLimit(queue, keys, ex);
		}
		if (!removed) {
			return AdminResult.refused(Refusal.NO_SUCH_LIMIT, null, where(queue, keys));
		}
		log("remove-limit", queue, null, null, 0, (keys != null) ? "keys " + keys : null);
		return AdminResult.done("Limit of " + where(queue, keys) + " is removed", null, List.of());
	}

	@Override
	public AdminResult setFairness(String queue, @Nullable String weights) {
		Fairness fairness;
		try {
			fairness = Fairness.parse((weights == null || weights.isBlank()) ? List.of()
					: Arrays.stream(weights.split(",")).map(String::trim).toList());
		}
		catch (IllegalArgumentException ex) {
			throw new RefusedException(Refusal.INVALID_LIMIT, "fair turns of " + where(queue, null), ex.getMessage());
		}
		return setFairness(queue, fairness);
	}

	@Override
	public AdminResult setFairness(String queue, Fairness fairness) {
		FlowControl flowControl = this.flowControl;
		if (flowControl == null) {
			return AdminResult.refused(Refusal.NO_LIMITS, null);
		}
		try {
			flowControl.setFairness(queue, fairness);
		}
		catch (IllegalArgumentException ex) {
			throw invalidLimit(queue, null, ex);
		}
		log("set-fairness", queue, null, null, 0, fairness.toString());
		return AdminResult.done("Keys of " + where(queue, null) + " take turns: " + fairness, null, List.of());
	}

	@Override
	public AdminResult removeFairness(String queue) {
		FlowControl flowControl = this.flowControl;
		if (flowControl == null) {
			return AdminResult.refused(Refusal.NO_LIMITS, null);
		}
		boolean removed;
		try {
			removed = flowControl.removeFairness(queue);
		}
		catch (IllegalArgumentException ex) {
			throw invalidLimit(queue, null, ex);
		}
		if (!removed) {
			return AdminResult.refused(Refusal.NO_SUCH_LIMIT, null, "fair turns of " + where(queue, null));
		}
		log("remove-fairness", queue, null, null, 0, null);
		return AdminResult.done("Keys of " + where(queue, null) + " no longer take turns", null, List.of());
	}

	@Override
	public AdminResult pauseQueue(String queue, @Nullable String by) {
		String name = validQueue(queue);
		ClusterStore cluster = this.store.cluster();
		if (!isKnown(name, cluster)) {
			throw new RefusedException(Refusal.UNKNOWN_QUEUE, name);
		}
		String who = (this.actor != null) ? this.actor : named(by);
		if (!cluster.pause(name, who, () -> entry(who, "pause-queue", name, null, null, 0, null))) {
			return AdminResult.refused(Refusal.QUEUE_ALREADY_PAUSED, null, name);
		}
		if (this.manager != null) {
			this.manager.pausedChanged();
		}
		return AdminResult.done("Queue '" + name + "' is paused: no instance claims its jobs until it is resumed",
				null, List.of());
	}

	@Override
	public AdminResult resumeQueue(String queue) {
		String name = validQueue(queue);
		if (!this.store.cluster().resume(name, () -> log("resume-queue", name, null, null, 0, null))) {
			return AdminResult.refused(Refusal.QUEUE_NOT_PAUSED, null, name);
		}
		if (this.manager != null) {
			this.manager.pausedChanged();
		}
		return AdminResult.done("Queue '" + name + "' is resumed", null, List.of());
	}

	@Override
	public QueueAdmin by(@Nullable String actor) {
		return new DefaultQueueAdmin(this.jobs, this.store, this.reads, this.manager, this.schedules,
				this.flowControl, this.tableHealth, named(actor));
	}

	@Override
	public List<AuditEntry> audit(int limit) {
		if (limit < 1 || limit > MAX_BULK) {
			throw new RefusedException(Refusal.BULK_LIMIT, limit);
		}
		return this.store.audit().newest(limit);
	}

	/**
	 * Runs an action whose writes join the current transaction and, when it did something,
	 * writes its entry in the same one, so both commit or neither.
	 */
	private boolean audited(BooleanSupplier action, Runnable entry) {
		return this.store.audit().inTransaction(() -> {
			boolean done = action.getAsBoolean();
			if (done) {
				entry.run();
			}
			return done;
		});
	}

	/** Writes an entry of this admin's actor, in the current transaction if there is one. */
	private void log(String action, @Nullable String queue, @Nullable Long jobId, @Nullable String schedule, int jobs,
			@Nullable String detail) {
		entry(this.actor, action, queue, jobId, schedule, jobs, detail);
	}

	private void entry(@Nullable String who, String action, @Nullable String queue, @Nullable Long jobId,
			@Nullable String schedule, int jobs, @Nullable String detail) {
		this.store.audit().record(who, action, queue, jobId, schedule, jobs, detail);
	}

	private static @Nullable String named(@Nullable String name) {
		return (name != null && !name.isBlank()) ? name : null;
	}

	@Override
	public List<PausedQueue> pausedQueues() {
		return this.store.cluster()
			.paused()
			.stream()
			.map((row) -> new PausedQueue(row.queue(), row.pausedAt(), row.pausedBy()))
			.toList();
	}

	@Override
	public Optional<List<JobAttempt>> attempts(long id) {
		if (this.jobs.find(id).isEmpty()) {
			return Optional.empty();
		}
		return Optional.of(this.store.attempts().of(id));
	}

	@Override
	public List<QueueInstance> instances() {
		return this.store.cluster().instances().stream().map(DefaultQueueAdmin::instance).toList();
	}

	private static QueueInstance instance(InstanceRow row) {
		return new QueueInstance(row.id(), row.host(), row.pid(), row.version(), row.queues(), row.concurrency(),
				row.busyWorkers(), row.startedAt(), row.lastSeen(), row.sinceSeen(), row.gone());
	}

	/**
	 * A queue is known when a handler of this instance serves it, a live instance lists it,
	 * a job waits in it, or it is paused (so that pausing it again is the no-op it says).
	 */
	private boolean isKnown(String queue, ClusterStore cluster) {
		if (this.manager != null && this.manager.servedQueues().contains(queue)) {
			return true;
		}
		return cluster.instances().stream().anyMatch((row) -> row.queues().contains(queue))
				|| cluster.hasQueuedJob(queue) || cluster.pausedQueues().contains(queue);
	}

	private static String validQueue(@Nullable String queue) {
		if (queue == null || queue.isBlank()) {
			throw new RefusedException(Refusal.INVALID_QUEUE, String.valueOf(queue), "it is blank");
		}
		try {
			return Names.requireQueue(queue);
		}
		catch (IllegalArgumentException ex) {
			throw new RefusedException(Refusal.INVALID_QUEUE, queue, ex.getMessage());
		}
	}

	/** Refused for the job's state now: {@code NO_SUCH_JOB} when it went meanwhile. */
	private AdminResult notInState(Refusal refusal, long id) {
		JobStatus now = current(id);
		return (now != null) ? AdminResult.refused(refusal, now, id, now)
				: AdminResult.refused(Refusal.NO_SUCH_JOB, null, id);
	}

	private @Nullable JobStatus current(long id) {
		return this.jobs.find(id).map(JobRecord::status).orElse(null);
	}

	private Optional<ScheduleRecord> schedule(String name) {
		return (this.schedules != null) ? this.schedules.find(name) : Optional.empty();
	}

	private static RefusedException invalidLimit(String queue, @Nullable String keys, IllegalArgumentException ex) {
		return new RefusedException(Refusal.INVALID_LIMIT, where(queue, keys), ex.getMessage());
	}

	private static String where(String queue, @Nullable String keys) {
		return "queue '" + queue + "'" + ((keys != null) ? " keys '" + keys + "'" : "");
	}

}
