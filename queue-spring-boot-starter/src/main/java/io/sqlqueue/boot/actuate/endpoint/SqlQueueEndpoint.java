package io.sqlqueue.boot.actuate.endpoint;

import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonRawValue;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import io.sqlqueue.BatchProgress;
import io.sqlqueue.DependencyFailure;
import io.sqlqueue.DuplicateJobException;
import io.sqlqueue.JobLinks;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobSignal;
import io.sqlqueue.JobStatus;
import io.sqlqueue.JobStep;
import io.sqlqueue.WorkflowGraph;
import io.sqlqueue.admin.AdminResult;
import io.sqlqueue.admin.AuditEntry;
import io.sqlqueue.admin.BulkAction;
import io.sqlqueue.admin.BulkResult;
import io.sqlqueue.admin.FilterText;
import io.sqlqueue.admin.JobAttempt;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.JobPage;
import io.sqlqueue.admin.JobSummary;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.QueueInstance;
import io.sqlqueue.admin.RefusedException;
import io.sqlqueue.admin.Staleness;
import io.sqlqueue.admin.TableHealth;
import io.sqlqueue.flow.FairKeyShare;
import io.sqlqueue.flow.Fairness;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.flow.QueueLimits;
import io.sqlqueue.flow.RateLimit;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.QueueCount;
import io.sqlqueue.internal.store.ReadStore;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleRecord;
import io.sqlqueue.schedule.ScheduleSource;
import io.sqlqueue.schedule.Schedules;

/**
 * The {@code sqlqueue} Actuator endpoint, for operators: the jobs per queue and state
 * (read when asked), one job by id, retrying a {@code FAILED} job, cancelling a
 * {@code QUEUED} one, and retrying the failed jobs of a queue or handler; the recurring
 * jobs' schedules, and pausing, resuming or triggering one
 * ({@code POST /sqlqueue/schedules/{name}} with an {@code action}); each queue's limits and
 * the due jobs they hold back, and setting or removing a limit
 * ({@code POST /sqlqueue/limits/{queue}} with an {@code action}); pausing or resuming a queue
 * on every instance ({@code POST /sqlqueue/queues/{queue}}), each queue's pause and the
 * instances that run jobs; a job's place in a
 * workflow, and a batch's progress ({@code GET /sqlqueue/batches/{id}}); the health of the
 * queue's tables as last read ({@code tables}); searching jobs by a filter
 * ({@code GET /sqlqueue/jobs/search}, {@code GET /sqlqueue/jobs/count}) and retrying,
 * cancelling or deleting every job it matches ({@code POST /sqlqueue} with an
 * {@code action}). The writes are
 * {@link QueueAdmin}'s actions, answered with its messages. The counts per queue and the
 * searches and counts of a filter read the read replica where the application has one
 * ({@link ReadStore}), and say so ({@code reads}); a replica that fails them fails them
 * ({@link io.sqlqueue.admin.ReplicaReadException}), with no fallback to the queue's own
 * database.
 */
@Endpoint(id = "sqlqueue")
public class SqlQueueEndpoint {

	/** Entries of the audit log that {@code GET /sqlqueue} shows; {@link QueueAdmin#audit} has more. */
	static final int AUDIT_SHOWN = 20;

	private final JobQueue jobs;

	private final @Nullable Manager manager;

	private final boolean showPayload;

	private final @Nullable Schedules schedules;

	private final @Nullable FlowControl flowControl;

	private final QueueAdmin admin;

	/** Where the counts per queue are read: the store's own, or a replica's. */
	private final ReadStore reads;

	/**
	 * @param manager this instance's Manager, or {@code null} when it runs no jobs
	 * @param showPayload whether a job's payload is shown
	 * @param schedules the recurring jobs, or {@code null} to show none
	 * @param flowControl the limits, or {@code null} to show none
	 * @param admin the operator actions the writes call
	 */
	public SqlQueueEndpoint(JobQueue jobs, JobStore store, @Nullable Manager manager, boolean showPayload,
			@Nullable Schedules schedules, @Nullable FlowControl flowControl, QueueAdmin admin) {
		this(jobs, ReadStore.of(store), manager, showPayload, schedules, flowControl, admin);
	}

	/**
	 * As {@link #SqlQueueEndpoint(JobQueue, JobStore, Manager, boolean, Schedules, FlowControl, QueueAdmin)},
	 * with the counts per queue read from {@code reads} (a replica's, or the store's own).
	 */
	public SqlQueueEndpoint(JobQueue jobs, ReadStore reads, @Nullable Manager manager, boolean showPayload,
			@Nullable Schedules schedules, @Nullable FlowControl flowControl, QueueAdmin admin) {
		this.reads = reads;
		this.flowControl = flowControl;
		this.admin = admin;
		this.jobs = jobs;
		this.manager = manager;
		this.showPayload = showPayload;
		this.schedules = schedules;
	}

	/**
	 * Jobs per queue and state, counted now (on the read replica where there is one, with how
	 * far behind it is as {@code reads}), with this instance's workers per queue, and the
	 * queue's limits and the due jobs they hold back now.
	 */
	@ReadOperation
	public QueuesDescriptor queues() {
		ReadsDescriptor reads = ReadsDescriptor.of(this.reads.staleness());
		List<QueueCount> counts = this.reads.countsByQueue();
		Map<String, QueueLimits> limits = new TreeMap<>();
		Map<String, Map<String, Long>> throttled = Map.of();
		if (this.flowControl != null) {
			this.flowControl.all().forEach((queueLimits) -> limits.put(queueLimits.queue(), queueLimits));
			throttled = this.flowControl.throttled();
		}
		Instant countedAt = Instant.now();
		Map<String, Integer> busy = (this.manager != null) ? this.manager.busyWorkers() : Map.of();
		Map<String, Integer> total = (this.manager != null) ? this.manager.totalWorkers() : Map.of();
		Map<String, Map<JobStatus, Long>> jobsByQueue = new TreeMap<>();
		Map<String, Duration> oldest = new TreeMap<>();
		Map<String, Set<JobStatus>> estimated = new TreeMap<>();
		Map<String, PausedDescriptor> paused = new TreeMap<>();
		this.admin.pausedQueues()
			.forEach((queue) -> paused.put(queue.queue(), new PausedDescriptor(queue.pausedAt(), queue.pausedBy())));
		List<InstanceDescriptor> instances = this.admin.instances().stream().map(InstanceDescriptor::of).toList();
		total.keySet().forEach((queue) -> jobsByQueue.computeIfAbsent(queue, (key) -> zeroCounts()));
		paused.keySet().forEach((queue) -> jobsByQueue.computeIfAbsent(queue, (key) -> zeroCounts()));
		limits.keySet().forEach((queue) -> jobsByQueue.computeIfAbsent(queue, (key) -> zeroCounts()));
		for (QueueCount count : counts) {
			jobsByQueue.computeIfAbsent(count.queue(), (key) -> zeroCounts()).merge(count.status(), count.jobs(), Long::sum);
			if (count.estimated()) {
				estimated.computeIfAbsent(count.queue(), (key) -> EnumSet.noneOf(JobStatus.class)).add(count.status());
			}
			if (count.status() == JobStatus.QUEUED) {
				oldest.put(count.queue(), count.oldestDueAge());
			}
		}
		Map<String, QueueDescriptor> queues = new TreeMap<>();
		Map<String, Map<String, Long>> held = throttled;
		jobsByQueue.forEach((queue, jobs) -> queues.put(queue,
				new QueueDescriptor(jobs, oldest.getOrDefault(queue, Duration.ZERO).toString(), busy.get(queue),
						total.get(queue), limitsOf(limits.get(queue)), held.getOrDefault(queue, Map.of()),
						paused.get(queue), estimated.getOrDefault(queue, Set.of()))));
		Map<String, ScheduleDescriptor> schedules = new TreeMap<>();
		if (this.schedules != null) {
			this.schedules.list().forEach((schedule) -> schedules.put(schedule.name(), ScheduleDescriptor.of(schedule)));
		}
		return new QueuesDescriptor(countedAt, queues, schedules, instances, this.admin.tableHealth(),
				this.admin.audit(AUDIT_SHOWN), reads);
	}

	/**
	 * On a queue ({@code POST /sqlqueue/queues/{queue}}): pauses ({@code action=pause}) or
	 * resumes ({@code action=resume}) it on every instance; a blank, malformed or unknown
	 * queue is a 400 and nothing is stored.
	 * On a schedule ({@code POST /sqlqueue/schedules/{name}}): pauses ({@code action=pause}),
	 * resumes ({@code action=resume}) or fires it now ({@code action=trigger}). On a queue's
	 * limits ({@code POST /sqlqueue/limits/{queue}}): sets ({@code action=set}, with
	 * {@code concurrency} and/or {@code rateLimit} such as {@code 100/1m}) or removes
	 * ({@code action=remove}) the queue's own limit, or with {@code keys} the limit of the
	 * concurrency keys that pattern matches; makes the queue's keys take turns
	 * ({@code action=fair}, with {@code weights} such as {@code gold:*=3,tin=1} or none for
	 * round-robin) or ends their turns ({@code action=unfair}). Says what happened.
	 */
	public OperationResponseBody action(String kind, String name, String action, @Nullable String keys,
			@Nullable Integer concurrency, @Nullable String rateLimit) {
		return action(kind, name, action, keys, concurrency, rateLimit, null, null, null);
	}

	/**
	 * As {@link #action(String, String, String, String, Integer, String)}, for the user the
	 * request is signed in as ({@code principal}), else for {@code by}: who the audit log records.
	 */
	@WriteOperation
	public OperationResponseBody action(@Selector String kind, @Selector String name, String action,
			@Nullable String keys, @Nullable Integer concurrency, @Nullable String rateLimit, @Nullable String weights,
			@Nullable String by, @Nullable Principal principal) {
		QueueAdmin admin = actingFor(principal, by);
		return switch (kind) {
			case "queues" -> queueAction(admin, name, action);
			case "schedules" -> scheduleAction(admin, name, action);
			case "limits" -> limitAction(admin, name, action, keys, concurrency, rateLimit, weights);
			default -> throw new InvalidEndpointRequestException("Unknown path '" + kind
					+ "'; use /sqlqueue/queues/{queue}, /sqlqueue/schedules/{name} or /sqlqueue/limits/{queue}",
					"Unknown path");
		};
	}

	private QueueActionDescriptor queueAction(QueueAdmin admin, String queue, String action) {
		if (!action.equals("pause") && !action.equals("resume")) {
			throw new InvalidEndpointRequestException("Unknown action '" + action + "'; use 'pause' or 'resume'",
					"Unknown action");
		}
		AdminResult result;
		try {
			result = action.equals("pause") ? admin.pauseQueue(queue) : admin.resumeQueue(queue);
		}
		catch (RefusedException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid queue");
		}
		return new QueueActionDescriptor(queue, action, result.done(), result.message());
	}

	/** A queue's limits as shown, with its fair keys' shares when it is fair. */
	private @Nullable LimitsDescriptor limitsOf(@Nullable QueueLimits limits) {
		FlowControl flow = this.flowControl;
		List<FairKeyShare> shares = (limits != null && limits.isFair() && flow != null)
				? flow.fairShares(limits.queue()) : List.of();
		return LimitsDescriptor.of(limits, shares);
	}

	private LimitActionDescriptor limitAction(QueueAdmin admin, String queue, String action, @Nullable String keys,
			@Nullable Integer concurrency, @Nullable String rateLimit, @Nullable String weights) {
		AdminResult result;
		try {
			result = switch (action) {
				case "set" -> admin.setLimit(queue, keys, concurrency, rateLimit);
				case "remove" -> admin.removeLimit(queue, keys);
				case "fair" -> admin.setFairness(queue, weights);
				case "unfair" -> admin.removeFairness(queue);
				default -> throw new InvalidEndpointRequestException(
						"Unknown action '" + action + "'; use 'set', 'remove', 'fair' or 'unfair'", "Unknown action");
			};
		}
		catch (RefusedException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid limit");
		}
		LimitsDescriptor limits = (this.flowControl != null) ? limitsOf(this.flowControl.limits(queue)) : null;
		return new LimitActionDescriptor(queue, keys, action, result.done(), limits, result.message());
	}

	private ScheduleActionDescriptor scheduleAction(QueueAdmin admin, String name, String action) {
		if (!action.equals("pause") && !action.equals("resume") && !action.equals("trigger")) {
			throw new InvalidEndpointRequestException(
					"Unknown action '" + action + "'; use 'pause', 'resume' or 'trigger'", "Unknown action");
		}
		AdminResult result = switch (action) {
			case "pause" -> admin.pauseSchedule(name);
			case "resume" -> admin.resumeSchedule(name);
			default -> admin.triggerSchedule(name);
		};
		Long jobId = (result.done() && action.equals("trigger")) ? result.ids().get(0) : null;
		ScheduleDescriptor after = (this.schedules != null)
				? this.schedules.find(name).map(ScheduleDescriptor::of).orElse(null) : null;
		return new ScheduleActionDescriptor(name, action, result.done(), jobId, after, result.message());
	}

	/**
	 * The admin acting for whoever is signed in to Actuator's web endpoint (the request's
	 * user, Spring Security's authentication where it guards it), else for the {@code by}
	 * the request names, else for no one: who the audit log and a pause record.
	 */
	private QueueAdmin actingFor(@Nullable Principal principal, @Nullable String by) {
		String name = (principal != null && principal.getName() != null && !principal.getName().isBlank())
				? principal.getName() : by;
		return this.admin.by(name);
	}

	private static Map<JobStatus, Long> zeroCounts() {
		Map<JobStatus, Long> counts = new EnumMap<>(JobStatus.class);
		for (JobStatus status : JobStatus.values()) {
			counts.put(status, 0L);
		}
		return counts;
	}

	/**
	 * The job with this id as stored, with its place in a workflow (what it runs after, what
	 * runs after it, its batch) and its ended attempts ({@code history}, whichever instance ran
	 * them), its durable progress ({@code steps}: what its runs recorded, and {@code signals}:
	 * what was sent to it; docs/durable-steps.md), or {@code null} (404) when there is none. A
	 * job yet to run whose handler this instance lacks has a {@code handlerNotice}.
	 */
	@ReadOperation
	public @Nullable JobDescriptor job(@Selector long id) {
		return this.jobs.find(id)
			.map((job) -> JobDescriptor.of(job, this.showPayload, this.jobs.links(id)
				.filter(JobLinks::inWorkflow)
				.map((links) -> WorkflowDescriptor.of(links, this.jobs.graph(id).orElse(null)))
				.orElse(null), handlerNotice(job), this.admin.attempts(id).orElse(List.of()), this.jobs.steps(id),
					this.jobs.signals(id)))
			.orElse(null);
	}

	/** What {@link io.sqlqueue.internal.handler.UnknownHandlers#notice} says of a job yet to run; none for others. */
	private @Nullable String handlerNotice(JobRecord job) {
		boolean yetToRun = job.status() == JobStatus.QUEUED || job.status() == JobStatus.WAITING;
		return yetToRun ? this.jobs.unknownHandlerNotice(job.handler()).orElse(null) : null;
	}

	/** The batch with this id and its counts now ({@code GET /sqlqueue/batches/{id}}), or {@code null} (404). */
	public @Nullable BatchDescriptor batch(String kind, long id) {
		if (!kind.equals("batches")) {
			throw new InvalidEndpointRequestException("Unknown path '" + kind + "'; use /sqlqueue/batches/{id}",
					"Unknown path");
		}
		return this.jobs.batch(id).map(BatchDescriptor::new).orElse(null);
	}

	/**
	 * A batch ({@code GET /sqlqueue/batches/{id}}, {@link #batch}); or the jobs that match a
	 * filter, newest first, a page at a time ({@code GET /sqlqueue/jobs/search}, cursors
	 * {@code before} or {@code after}, {@code limit} up to {@link QueueAdmin#MAX_PAGE_SIZE},
	 * 50 when left out), or how many match ({@code GET /sqlqueue/jobs/count}). The filter's
	 * parameters are {@link FilterText}'s, one {@code meta} and one {@code payload} condition
	 * here; a malformed one is a 400 that says which, and a search is never refused for
	 * being deep.
	 */
	@ReadOperation
	public @Nullable Object read(@Selector String kind, @Selector String name, @Nullable String queue,
			@Nullable String handler, @Nullable String status, @Nullable String search, @Nullable String tags,
			@Nullable String meta, @Nullable String payload, @Nullable String createdFrom,
			@Nullable String createdBefore, @Nullable Long before, @Nullable Long after, @Nullable Integer limit) {
		if (kind.equals("batches")) {
			try {
				return batch(kind, Long.parseLong(name));
			}
			catch (NumberFormatException ex) {
				throw new InvalidEndpointRequestException("Not a batch id: '" + name + "'", "Invalid batch id");
			}
		}
		if (!kind.equals("jobs") || (!name.equals("search") && !name.equals("count"))) {
			throw new InvalidEndpointRequestException("Unknown path '" + kind + "/" + name
					+ "'; use /sqlqueue/batches/{id}, /sqlqueue/jobs/search or /sqlqueue/jobs/count", "Unknown path");
		}
		try {
			JobFilter filter = filter(queue, handler, status, search, tags, meta, payload, createdFrom, createdBefore);
			if (name.equals("count")) {
				return count(filter);
			}
			if (before != null && after != null) {
				throw new InvalidEndpointRequestException("Give 'before' or 'after', not both", "Invalid cursor");
			}
			int size = (limit != null) ? limit : DEFAULT_PAGE_SIZE;
			ReadsDescriptor reads = ReadsDescriptor.of(this.admin.readStaleness());
			JobPage page = (after != null) ? this.admin.searchNewer(filter, after, size)
					: this.admin.search(filter, before, size);
			return new SearchDescriptor(page.jobs(), page.older(), page.newer(), reads);
		}
		catch (RefusedException ex) {
			// The message is the reason: the 400's detail says what is wrong with the filter.
			throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
		}
	}

	/** How many jobs match, with where that was read. */
	private CountDescriptor count(JobFilter filter) {
		ReadsDescriptor reads = ReadsDescriptor.of(this.admin.readStaleness());
		return new CountDescriptor(this.admin.count(filter), filter.isEmpty(), reads);
	}

	/** Jobs per page of a search when the request does not say. */
	static final int DEFAULT_PAGE_SIZE = 50;

	static JobFilter filter(@Nullable String queue, @Nullable String handler, @Nullable String status,
			@Nullable String search, @Nullable String tags, @Nullable String meta, @Nullable String payload,
			@Nullable String createdFrom, @Nullable String createdBefore) {
		Map<String, @Nullable String> values = new HashMap<>();
		values.put("queue", queue);
		values.put("handler", handler);
		values.put("status", status);
		values.put("search", search);
		values.put("tags", tags);
		values.put("meta", meta);
		values.put("payload", payload);
		values.put("createdFrom", createdFrom);
		values.put("createdBefore", createdBefore);
		return FilterText.parse((parameter) -> {
			String value = values.get(parameter);
			return (value != null) ? List.of(value) : List.of();
		});
	}

	/**
	 * Retries ({@code action=retry}) a {@code FAILED} job with a fresh set of attempts, or
	 * cancels ({@code action=cancel}) a {@code QUEUED} one, or asks the instance running a
	 * {@code RUNNING} one to stop it; says what happened.
	 */
	public ActionDescriptor jobAction(long id, String action) {
		return jobAction(id, action, null, null);
	}

	/** As {@link #jobAction(long, String)}, for the signed-in user, else for {@code by}. */
	@WriteOperation
	public ActionDescriptor jobAction(@Selector long id, String action, @Nullable String by,
			@Nullable Principal principal) {
		if (!action.equals("retry") && !action.equals("cancel")) {
			throw new InvalidEndpointRequestException("Unknown action '" + action + "'; use 'retry' or 'cancel'",
					"Unknown action");
		}
		QueueAdmin admin = actingFor(principal, by);
		AdminResult result = action.equals("retry") ? admin.retry(id) : admin.cancel(id);
		return new ActionDescriptor(id, action, result.done(), result.status(), result.message());
	}

	/**
	 * On the jobs ({@code POST /sqlqueue}): {@code action=retry-failed} as
	 * {@link #retryFailed}; or {@code action=retry}, {@code cancel} or {@code delete} on every
	 * job that matches the filter ({@link QueueAdmin#bulk}, in chunks; its parameters as
	 * {@link #read}'s), refused (400) without any filter; or {@code action=count}, how many
	 * match, to show before a bulk action is confirmed.
	 */
	@WriteOperation
	public OperationResponseBody jobs(String action, @Nullable String queue, @Nullable String handler,
			@Nullable Integer limit, @Nullable String status, @Nullable String search, @Nullable String tags,
			@Nullable String meta, @Nullable String payload, @Nullable String createdFrom,
			@Nullable String createdBefore, @Nullable String by, @Nullable Principal principal) {
		if (action.equals("retry-failed")) {
			return retryFailed(action, queue, handler, limit, by, principal);
		}
		BulkAction bulk = switch (action) {
			case "retry" -> BulkAction.RETRY;
			case "cancel" -> BulkAction.CANCEL;
			case "delete" -> BulkAction.DELETE;
			case "count" -> null;
			default -> throw new InvalidEndpointRequestException("Unknown action '" + action
					+ "'; use 'count', 'retry', 'cancel', 'delete' or 'retry-failed', or name a job: /sqlqueue/{id}",
					"Unknown action");
		};
		try {
			JobFilter filter = filter(queue, handler, status, search, tags, meta, payload, createdFrom, createdBefore);
			if (bulk == null) {
				return count(filter);
			}
			BulkResult result = actingFor(principal, by).bulk(bulk, filter);
			return new BulkDescriptor(action, result.done(), result.matched(), result.changed(), result.skipped(),
					result.chunks(), result.message());
		}
		catch (RefusedException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
		}
	}

	/**
	 * Retries ({@code action=retry-failed}) up to {@code limit} (1 to
	 * {@link QueueAdmin#MAX_BULK}, that many when left out) failed jobs, oldest first, of this
	 * queue and this handler (either left out for any).
	 */
	public RetriedDescriptor retryFailed(String action, @Nullable String queue, @Nullable String handler,
			@Nullable Integer limit) {
		return retryFailed(action, queue, handler, limit, null, null);
	}

	/** As {@link #retryFailed(String, String, String, Integer)}, for the signed-in user, else for {@code by}. */
	public RetriedDescriptor retryFailed(String action, @Nullable String queue, @Nullable String handler,
			@Nullable Integer limit, @Nullable String by, @Nullable Principal principal) {
		if (!action.equals("retry-failed")) {
			throw new InvalidEndpointRequestException(
					"Unknown action '" + action + "'; use 'retry-failed', or name a job: /sqlqueue/{id}",
					"Unknown action");
		}
		List<Long> ids;
		try {
			ids = actingFor(principal, by).retryFailed(queue, handler, (limit != null) ? limit : QueueAdmin.MAX_BULK)
				.ids();
		}
		catch (RefusedException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid limit");
		}
		return new RetriedDescriptor(action, queue, handler, ids.size(), ids);
	}

	/**
	 * Jobs per queue.
	 * @param countedAt when they were counted
	 * @param queues by queue name
	 * @param schedules the recurring jobs' schedules, by name
	 * @param instances the instances that run jobs, the longest running first, with those gone
	 * but not yet deleted
	 * @param tables the health of the queue's tables as last read on a schedule (its
	 * {@code readAt} says when), or {@code null} when not asked for
	 * @param audit the newest {@value #AUDIT_SHOWN} entries of the audit log, newest first
	 * @param reads where the counts in {@code queues} were read, and how far behind that was
	 * (asked just before they were counted)
	 */
	public record QueuesDescriptor(Instant countedAt, Map<String, QueueDescriptor> queues,
			Map<String, ScheduleDescriptor> schedules, List<InstanceDescriptor> instances,
			@Nullable TableHealth tables, List<AuditEntry> audit, ReadsDescriptor reads)
			implements OperationResponseBody {

		public QueuesDescriptor(Instant countedAt, Map<String, QueueDescriptor> queues) {
			this(countedAt, queues, Map.of());
		}

		public QueuesDescriptor(Instant countedAt, Map<String, QueueDescriptor> queues,
				Map<String, ScheduleDescriptor> schedules) {
			this(countedAt, queues, schedules, List.of(), null, List.of(), ReadsDescriptor.of(
					Staleness.primary(countedAt)));
		}

	}

	/**
	 * Where reads that tolerate staleness came from ({@link Staleness}): the queue's own
	 * database, or the read replica and how far behind it said it was.
	 * @param replica whether they came from the read replica ({@code @SqlQueueReadDataSource})
	 * @param state what the replica said of itself ({@code PRIMARY} without one)
	 * @param behind how far behind the queue's own database at most (ISO-8601), {@code null}
	 * when it cannot tell
	 * @param checkedAt when it was asked
	 * @param detail what it said, in words, or {@code null}
	 */
	public record ReadsDescriptor(boolean replica, Staleness.State state, @Nullable String behind,
			Instant checkedAt, @Nullable String detail) {

		static ReadsDescriptor of(Staleness staleness) {
			return new ReadsDescriptor(staleness.replica(), staleness.state(),
					(staleness.behind() != null) ? staleness.behind().toString() : null, staleness.checkedAt(),
					staleness.detail());
		}

	}

	/**
	 * A paused queue: no instance claims its jobs.
	 * @param pausedAt when it was paused (database clock)
	 * @param pausedBy who paused it, or {@code null} when not named
	 */
	public record PausedDescriptor(Instant pausedAt, @Nullable String pausedBy) {
	}

	/**
	 * An instance as its row last said ({@link QueueInstance}).
	 * @param sinceSeen how long since it last wrote its row (ISO-8601, database clock)
	 * @param gone whether it missed three beats
	 */
	public record InstanceDescriptor(String id, String host, long pid, String version, List<String> queues,
			int concurrency, int busyWorkers, Instant startedAt, Instant lastSeen, String sinceSeen, boolean gone) {

		static InstanceDescriptor of(QueueInstance instance) {
			return new InstanceDescriptor(instance.id(), instance.host(), instance.pid(), instance.version(),
					instance.queues(), instance.concurrency(), instance.busyWorkers(), instance.startedAt(),
					instance.lastSeen(), instance.sinceSeen().toString(), instance.gone());
		}

	}

	/**
	 * What an action on a queue did.
	 * @param done whether it changed anything (pausing a paused queue, or resuming one not
	 * paused, does not)
	 */
	public record QueueActionDescriptor(String queue, String action, boolean done, String message)
			implements OperationResponseBody {
	}

	/**
	 * One schedule as stored.
	 * @param queue the queue of its jobs, or {@code null} when not stored (an instance with the handler fills it in)
	 * @param priority the priority of its jobs
	 * @param maxAttempts the attempts of its jobs, or {@code null} when not stored (as {@code queue})
	 * @param cron its cron expression, or {@code null} for a fixed interval
	 * @param zone the time zone of its cron expression
	 * @param every its fixed interval (ISO-8601), or {@code null} for cron
	 * @param nextRunAt when it fires next (database clock)
	 * @param orphaned whether the code no longer declares it (it does not fire)
	 * @param source where it was declared
	 */
	public record ScheduleDescriptor(String handler, @Nullable String queue, int priority,
			@Nullable Integer maxAttempts, @Nullable String cron,
			@Nullable String zone, @Nullable String every, String misfire, String overlap, Instant nextRunAt,
			@Nullable Instant lastFiredAt, @Nullable Long lastJobId, @Nullable JobStatus lastJobStatus,
			boolean paused, boolean orphaned, ScheduleSource source) {

		static ScheduleDescriptor of(ScheduleRecord schedule) {
			Recurrence recurrence = schedule.definition().recurrence();
			Duration every = recurrence.every();
			return new ScheduleDescriptor(schedule.definition().handler(), schedule.definition().queue(),
					schedule.definition().priority(), schedule.definition().maxAttempts(), recurrence.cron(), recurrence.zone(), (every != null) ? every.toString() : null,
					schedule.definition().misfire().name(), schedule.definition().overlap().name(),
					schedule.nextRunAt(), schedule.lastFiredAt(), schedule.lastJobId(), schedule.lastJobStatus(),
					schedule.paused(), schedule.orphaned(), schedule.source());
		}

	}

	/**
	 * What an action on a schedule did.
	 * @param done whether it changed the schedule (or, for a trigger, enqueued its job)
	 * @param jobId the job a trigger enqueued
	 * @param schedule the schedule afterwards, or {@code null} when there is none
	 */
	public record ScheduleActionDescriptor(String name, String action, boolean done, @Nullable Long jobId,
			@Nullable ScheduleDescriptor schedule, String message) implements OperationResponseBody {
	}

	/**
	 * One queue.
	 * @param jobs jobs per state
	 * @param oldestDueAge how long the oldest due job has waited (ISO-8601)
	 * @param busyWorkers this instance's workers running a handler, or {@code null} when it does not serve the queue
	 * @param totalWorkers this instance's workers for the queue, or {@code null} when it does not serve the queue
	 * @param limits the queue's limits, or {@code null} when it has none
	 * @param throttled due jobs that a limit holds back now, by the limit ({@code queue-concurrency},
	 * {@code queue-rate}, {@code key-concurrency}, {@code key-rate})
	 * @param paused the queue's pause, or {@code null} when it is not paused
	 * @param estimated the states whose count in {@code jobs} is an estimate (on a large
	 * PostgreSQL table: docs/operations.md#counts-on-a-large-table), empty when all are counted
	 */
	public record QueueDescriptor(Map<JobStatus, Long> jobs, String oldestDueAge, @Nullable Integer busyWorkers,
			@Nullable Integer totalWorkers, @Nullable LimitsDescriptor limits, Map<String, Long> throttled,
			@Nullable PausedDescriptor paused, Set<JobStatus> estimated) {
	}

	/**
	 * A queue's limits (docs/flow-control.md).
	 * @param concurrency the most of its jobs running at once, or {@code null} for no such limit
	 * @param rateLimit the most starts per period ({@code 100/1m}), or {@code null}
	 * @param keyLimits the limits of its concurrency keys, by key pattern
	 * @param fairness its fair turns, or {@code null} when its keys take none
	 */
	public record LimitsDescriptor(@Nullable Integer concurrency, @Nullable String rateLimit,
			Map<String, KeyLimitDescriptor> keyLimits, @Nullable FairnessDescriptor fairness) {

		static @Nullable LimitsDescriptor of(@Nullable QueueLimits limits, List<FairKeyShare> fairKeys) {
			if (limits == null || limits.isEmpty()) {
				return null;
			}
			Fairness fair = limits.fairness();
			FairnessDescriptor fairness = (fair != null)
					? new FairnessDescriptor(new TreeMap<>(fair.weights()), fairKeys) : null;
			Map<String, KeyLimitDescriptor> keyLimits = new TreeMap<>();
			limits.keyLimits()
				.forEach((keyLimit) -> keyLimits.put(keyLimit.keys(), new KeyLimitDescriptor(
						keyLimit.limit().concurrency(), rate(keyLimit.limit()))));
			Limit own = limits.limit();
			return new LimitsDescriptor((own != null) ? own.concurrency() : null, (own != null) ? rate(own) : null,
					keyLimits, fairness);
		}

		private static @Nullable String rate(Limit limit) {
			return (limit.rate() != null) ? limit.rate().toString() : null;
		}

	}

	/**
	 * A queue's fair turns (docs/flow-control.md#fair-turns).
	 * @param weights the weights by key pattern; keys none matches weigh 1 (empty: round-robin)
	 * @param keys the keys with the most jobs due, each with its share of starts in about the
	 * last minute ({@link FlowControl#fairShares}); a key {@code null} is the jobs without one
	 */
	public record FairnessDescriptor(Map<String, Integer> weights, List<FairKeyShare> keys) {
	}

	/**
	 * The limit of each concurrency key a pattern matches.
	 * @param concurrency the most jobs of one such key running at once, or {@code null}
	 * @param rateLimit the most starts of one such key per period, or {@code null}
	 */
	public record KeyLimitDescriptor(@Nullable Integer concurrency, @Nullable String rateLimit) {
	}

	/**
	 * What an action on a limit did.
	 * @param keys the key pattern, or {@code null} for the queue's own limit
	 * @param done whether it changed a limit
	 * @param limits the queue's limits afterwards, or {@code null} when it has none
	 */
	public record LimitActionDescriptor(String queue, @Nullable String keys, String action, boolean done,
			@Nullable LimitsDescriptor limits, String message) implements OperationResponseBody {
	}

	/**
	 * A job as stored; payload and result as the JSON they are, the payload only when
	 * allowed.
	 * @param crashes attempts that ended because their worker was lost (lease expired)
	 * @param deadline when the job, not started by then, is cancelled instead
	 * @param cancelRequestedAt when a cancel of the running job was asked for
	 * @param handlerNotice for a job yet to run whose handler this instance neither has nor
	 * lists as remote: that it has none, the closest name, and that the job never runs if no
	 * running instance has it; {@code null} otherwise
	 * @param history its ended attempts, oldest first, as the database keeps them
	 * ({@link QueueAdmin#attempts})
	 * @param tags the job's tags ({@link io.sqlqueue.Job#tags}), empty for none
	 * @param meta the job's metadata ({@link io.sqlqueue.Job#meta}), empty for none
	 * @param steps what its runs recorded (steps, sleeps, waits for signals), oldest first;
	 * a parked job ({@code QUEUED}, due at a sleep's or a wait's {@code wakeAt}) reads why here
	 * @param signals the signals sent to it, oldest first; their payloads only when allowed
	 */
	public record JobDescriptor(long id, String queue, String handler, JobStatus status, int attempts,
			int maxAttempts, int crashes, int priority, @JsonRawValue @Nullable String payload,
			@JsonRawValue @Nullable String result, @Nullable String lastError, @Nullable String uniqueKey,
			@Nullable String groupKey, @Nullable String leaseOwner, @Nullable Instant leaseExpiresAt, Instant runAt,
			@Nullable Instant deadline, @Nullable Instant cancelRequestedAt, Instant createdAt, Instant updatedAt,
			@Nullable Instant startedAt, @Nullable Instant finishedAt,
			@Nullable WorkflowDescriptor workflow, @Nullable String handlerNotice,
			List<JobAttempt> history, List<String> tags, Map<String, String> meta, List<StepDescriptor> steps,
			List<SignalDescriptor> signals) implements OperationResponseBody {

		static JobDescriptor of(JobRecord job, boolean showPayload, @Nullable WorkflowDescriptor workflow,
				@Nullable String handlerNotice, List<JobAttempt> history, List<JobStep> steps,
				List<JobSignal> signals) {
			return new JobDescriptor(job.id(), job.queue(), job.handler(), job.status(), job.attempts(),
					job.maxAttempts(), job.crashes(), job.priority(), showPayload ? job.payload() : null,
					job.result(), job.lastError(), job.uniqueKey(), job.groupKey(), job.leaseOwner(),
					job.leaseExpiresAt(), job.runAt(), job.deadline(), job.cancelRequestedAt(), job.createdAt(),
					job.updatedAt(), job.startedAt(), job.finishedAt(), workflow, handlerNotice, history, job.tags(),
					job.meta(), steps.stream().map(StepDescriptor::of).toList(),
					signals.stream().map((signal) -> SignalDescriptor.of(signal, showPayload)).toList());
		}

	}

	/**
	 * One record of a job's durable progress ({@link JobStep}); its result as the JSON it is,
	 * as the job's own.
	 * @param result a step's result ({@code null} for a sleep or a wait)
	 * @param wakeAt when a sleep ends or a wait for a signal times out; {@code null} for a step
	 * @param timedOut whether a wait for a signal timed out
	 */
	public record StepDescriptor(JobStep.Kind kind, String name, @JsonRawValue @Nullable String result,
			@Nullable Instant wakeAt, boolean timedOut, Instant recordedAt) {

		static StepDescriptor of(JobStep step) {
			return new StepDescriptor(step.kind(), step.name(), step.result(), step.wakeAt(), step.timedOut(),
					step.recordedAt());
		}

	}

	/**
	 * A signal sent to a job ({@link JobSignal}).
	 * @param payload its payload as the JSON it is, only where a job's payload is shown: a
	 * caller's data, like the job's own
	 */
	public record SignalDescriptor(String name, @JsonRawValue @Nullable String payload, Instant sentAt) {

		static SignalDescriptor of(JobSignal signal, boolean showPayload) {
			return new SignalDescriptor(signal.name(), showPayload ? signal.payload() : null, signal.sentAt());
		}

	}

	/**
	 * A job's place in a workflow, or {@code null} in a job's descriptor when it has none.
	 * @param waitingFor how many of its dependencies (and, for a callback, its batch) have not ended
	 * @param dependencies the jobs it runs after, in their states now
	 * @param dependents the jobs that run after it, in their states now
	 * @param batch the batch it belongs to
	 * @param callbackOf the batch whose callback it is
	 * @param graph the whole workflow around it: its jobs in their states and the edges
	 * ({@code [dependency, dependent]}), up to {@link WorkflowGraph#MAX_JOBS} jobs
	 */
	public record WorkflowDescriptor(int waitingFor, DependencyFailure onDependencyFailure,
			List<JobLinks.LinkedJob> dependencies, List<JobLinks.LinkedJob> dependents,
			@Nullable BatchDescriptor batch, @Nullable BatchDescriptor callbackOf, @Nullable WorkflowGraph graph) {

		/** The workflow block of a job in a workflow ({@link JobLinks#inWorkflow()}). */
		static WorkflowDescriptor of(JobLinks links, @Nullable WorkflowGraph graph) {
			return new WorkflowDescriptor(links.waitingFor(), links.onDependencyFailure(), links.dependencies(),
					links.dependents(), (links.batch() != null) ? new BatchDescriptor(links.batch()) : null,
					(links.callbackOf() != null) ? new BatchDescriptor(links.callbackOf()) : null, graph);
		}

	}

	/**
	 * A batch's progress: its jobs by how they ended, those still pending, and its callback.
	 * @param finishedAt when its last job ended, or {@code null} while some are pending
	 */
	public record BatchDescriptor(long id, int total, int succeeded, int failed, int cancelled, int pending,
			@Nullable Long callbackId, Instant createdAt, @Nullable Instant finishedAt) implements OperationResponseBody {

		BatchDescriptor(BatchProgress batch) {
			this(batch.id(), batch.total(), batch.succeeded(), batch.failed(), batch.cancelled(), batch.pending(),
					batch.callbackId(), batch.createdAt(), batch.finishedAt());
		}

	}

	/**
	 * What an action on one job did.
	 * @param done whether it changed the job
	 * @param status the job's state afterwards, or {@code null} when there is no such job
	 */
	public record ActionDescriptor(long id, String action, boolean done, @Nullable JobStatus status,
			String message) implements OperationResponseBody {
	}

	/**
	 * How many jobs match a filter now.
	 * @param all whether the filter named nothing (every job), which no bulk action takes
	 * @param reads where it was counted, and how far behind that was
	 */
	public record CountDescriptor(long count, boolean all, ReadsDescriptor reads) implements OperationResponseBody {
	}

	/**
	 * A page of a search, newest first.
	 * @param older the {@code before} cursor of the next older page, or {@code null} for none
	 * @param newer the {@code after} cursor of the next newer page, or {@code null} for none
	 * @param reads where it was read, and how far behind that was
	 */
	public record SearchDescriptor(List<JobSummary> jobs, @Nullable Long older, @Nullable Long newer,
			ReadsDescriptor reads) implements OperationResponseBody {
	}

	/**
	 * What a bulk action did ({@link BulkResult}).
	 * @param matched the jobs its filter matched
	 * @param changed the jobs it changed
	 * @param skipped the jobs it passed over: in a state it does not apply to, or changed meanwhile
	 */
	public record BulkDescriptor(String action, boolean done, long matched, long changed, long skipped, int chunks,
			String message) implements OperationResponseBody {
	}

	/**
	 * What a {@code retry-failed} did.
	 * @param retried how many failed jobs were queued again
	 * @param ids their ids
	 */
	public record RetriedDescriptor(String action, @Nullable String queue, @Nullable String handler, int retried,
			List<Long> ids) implements OperationResponseBody {
	}

}
