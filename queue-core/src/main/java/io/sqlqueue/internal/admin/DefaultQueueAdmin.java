package io.sqlqueue.internal.admin;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.DuplicateJobException;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.Names;
import io.sqlqueue.admin.AdminResult;
import io.sqlqueue.admin.BulkAction;
import io.sqlqueue.admin.BulkResult;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.JobPage;
import io.sqlqueue.admin.PausedQueue;
import io.sqlqueue.admin.QueueInstance;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.Refusal;
import io.sqlqueue.admin.RefusedException;
import io.sqlqueue.admin.TableHealth;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.RateLimit;
import io.sqlqueue.internal.maintenance.TableHealthMonitor;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.ClusterStore;
import io.sqlqueue.internal.store.InstanceRow;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.schedule.ScheduleRecord;
import io.sqlqueue.schedule.Schedules;

/**
 * The operator actions on the {@link JobQueue}, its store, the {@link Schedules} and the
 * {@link FlowControl}, waking this instance's {@link Manager} where an action queues jobs
 * that no enqueue listener hears of.
 */
public class DefaultQueueAdmin implements QueueAdmin {

	private final JobQueue jobs;

	private final JobStore store;

	private final @Nullable Manager manager;

	private final @Nullable Schedules schedules;

	private final @Nullable FlowControl flowControl;

	private final @Nullable TableHealthMonitor tableHealth;

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
		if (this.jobs.find(id).isEmpty()) {
			return AdminResult.refused(Refusal.NO_SUCH_JOB, null, id);
		}
		try {
			if (this.jobs.retry(id)) {
				// The state the retry left, not a later read: a worker may have claimed the job already.
				return AdminResult.done("Job " + id + " is queued again with a fresh set of attempts", JobStatus.QUEUED,
						List.of(id));
			}
		}
		catch (DuplicateJobException ex) {
			return AdminResult.refused(Refusal.UNIQUE_KEY_TAKEN, current(id), id, ex.getMessage());
		}
		return notInState(Refusal.NOT_FAILED, id);
	}

	@Override
	public AdminResult cancel(long id) {
		if (this.jobs.find(id).isEmpty()) {
			return AdminResult.refused(Refusal.NO_SUCH_JOB, null, id);
		}
		if (!this.jobs.cancel(id)) {
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
		if (this.manager != null) {
			this.manager.wakeUp((queue != null) ? Set.of(queue) : this.manager.totalWorkers().keySet());
		}
		return AdminResult.done(ids.size() + " failed job" + ((ids.size() == 1) ? "" : "s") + of + " queued again",
				null, ids);
	}

	@Override
	public JobPage search(JobFilter filter, @Nullable Long before, int limit) {
		return this.store.browser().olderThan(filter, before, pageSize(limit));
	}

	@Override
	public JobPage searchNewer(JobFilter filter, long after, int limit) {
		return this.store.browser().newerThan(filter, after, pageSize(limit));
	}

	@Override
	public long count(JobFilter filter) {
		return this.store.browser().count(filter);
	}

	@Override
	public BulkResult bulk(BulkAction action, JobFilter filter) {
		BulkResult result = new BulkRun(this.jobs, this.store, BULK_CHUNK).run(action, filter);
		if (action == BulkAction.RETRY && result.changed() > 0 && this.manager != null) {
			this.manager.wakeUp((filter.queue() != null) ? Set.of(filter.queue()) : this.manager.totalWorkers().keySet());
		}
		return result;
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
		return (!schedule.get().paused() && this.schedules.pause(name))
				? AdminResult.done("Schedule '" + name + "' is paused", null, List.of())
				: AdminResult.refused(Refusal.ALREADY_PAUSED, null, name);
	}

	@Override
	public AdminResult resumeSchedule(String name) {
		Optional<ScheduleRecord> schedule = schedule(name);
		if (this.schedules == null || schedule.isEmpty()) {
			return AdminResult.refused(Refusal.NO_SUCH_SCHEDULE, null, name);
		}
		return (schedule.get().paused() && this.schedules.resume(name))
				? AdminResult.done("Schedule '" + name + "' fires again from its next tick", null, List.of())
				: AdminResult.refused(Refusal.NOT_PAUSED, null, name);
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
		return removed ? AdminResult.done("Limit of " + where(queue, keys) + " is removed", null, List.of())
				: AdminResult.refused(Refusal.NO_SUCH_LIMIT, null, where(queue, keys));
	}

	@Override
	public AdminResult pauseQueue(String queue, @Nullable String by) {
		String name = validQueue(queue);
		ClusterStore cluster = this.store.cluster();
		if (!isKnown(name, cluster)) {
			throw new RefusedException(Refusal.UNKNOWN_QUEUE, name);
		}
		if (!cluster.pause(name, (by != null && !by.isBlank()) ? by : null)) {
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
		if (!this.store.cluster().resume(name)) {
			return AdminResult.refused(Refusal.QUEUE_NOT_PAUSED, null, name);
		}
		if (this.manager != null) {
			this.manager.pausedChanged();
		}
		return AdminResult.done("Queue '" + name + "' is resumed", null, List.of());
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
	public List<QueueInstance> instances() {
		return this.store.cluster().instances().stream().map(DefaultQueueAdmin::instance).toList();
	}

	/** An instance is gone when it missed {@value #MISSED_BEATS} beats, on the database's clock. */
	static final int MISSED_BEATS = 3;

	private static QueueInstance instance(InstanceRow row) {
		Duration sinceSeen = Duration.between(row.lastSeen(), row.dbNow());
		if (sinceSeen.isNegative()) {
			sinceSeen = Duration.ZERO;
		}
		boolean gone = sinceSeen.toMillis() > MISSED_BEATS * row.beatMillis();
		return new QueueInstance(row.id(), row.host(), row.pid(), row.version(), row.queues(), row.concurrency(),
				row.busyWorkers(), row.startedAt(), row.lastSeen(), sinceSeen, gone);
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
