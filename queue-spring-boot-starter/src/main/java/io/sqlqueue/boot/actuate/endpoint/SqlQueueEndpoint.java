package io.sqlqueue.boot.actuate.endpoint;

import java.security.Principal;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import io.sqlqueue.JobQueue;
import io.sqlqueue.admin.BulkAction;
import io.sqlqueue.admin.FilterText;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.RefusedException;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.ReadStore;
import io.sqlqueue.schedule.Schedules;

/**
 * The {@code sqlqueue} Actuator endpoint, for operators: the jobs per queue and state
 * (read when asked), one job by id, retrying a {@code FAILED} job (a durable one also from
 * one of its records), cancelling a {@code QUEUED} one, and retrying the failed jobs of a queue or handler; the recurring
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
 * <p>
 * One endpoint, so that every path stays under {@code /sqlqueue}; what it does is in a
 * class per concern, which this one only routes to: the queues ({@link QueueOperations}),
 * the schedules ({@link ScheduleOperations}), the limits ({@link LimitOperations}), one job
 * ({@link JobOperations}), the batches ({@link BatchOperations}) and the jobs a filter
 * matches ({@link JobFilterOperations}). None of them depends on another, or on this class.
 */
@Endpoint(id = "sqlqueue")
public class SqlQueueEndpoint {

	/** The queues as {@code GET /sqlqueue} shows them, and pausing one. */
	private final QueueOperations queues;

	private final ScheduleOperations schedules;

	private final LimitOperations limits;

	private final JobOperations job;

	private final BatchOperations batches;

	/** The jobs a filter matches: searches, counts and bulk actions. */
	private final JobFilterOperations filtered;

	private final QueueAdmin admin;

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
		this.queues = new QueueOperations(reads, manager, schedules, flowControl, admin);
		this.schedules = new ScheduleOperations(schedules);
		this.limits = new LimitOperations(flowControl);
		this.job = new JobOperations(jobs, showPayload, admin);
		this.batches = new BatchOperations(jobs);
		this.filtered = new JobFilterOperations(admin);
		this.admin = admin;
	}

	/**
	 * Jobs per queue and state, counted now (on the read replica where there is one, with how
	 * far behind it is as {@code reads}), with this instance's workers per queue, and the
	 * queue's limits and the due jobs they hold back now.
	 */
	@ReadOperation
	public QueuesDescriptor queues() {
		return this.queues.overview();
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
			case "queues" -> this.queues.act(admin, name, action);
			case "schedules" -> this.schedules.act(admin, name, action);
			case "limits" -> this.limits.act(admin, name, action, keys, concurrency, rateLimit, weights);
			default -> throw new InvalidEndpointRequestException("Unknown path '" + kind
					+ "'; use /sqlqueue/queues/{queue}, /sqlqueue/schedules/{name} or /sqlqueue/limits/{queue}",
					"Unknown path");
		};
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

	/**
	 * The job with this id as stored, with its place in a workflow (what it runs after, what
	 * runs after it, its batch) and its ended attempts ({@code history}, whichever instance ran
	 * them), its durable progress ({@code steps}: what its runs recorded, and {@code signals}:
	 * what was sent to it; docs/durable-steps.md), or {@code null} (404) when there is none. A
	 * job yet to run whose handler this instance lacks has a {@code handlerNotice}.
	 */
	@ReadOperation
	public @Nullable JobDescriptor job(@Selector long id) {
		return this.job.read(id);
	}

	/** The batch with this id and its counts now ({@code GET /sqlqueue/batches/{id}}), or {@code null} (404). */
	public @Nullable BatchDescriptor batch(String kind, long id) {
		if (!kind.equals("batches")) {
			throw new InvalidEndpointRequestException("Unknown path '" + kind + "'; use /sqlqueue/batches/{id}",
					"Unknown path");
		}
		return this.batches.read(id);
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
			JobFilter filter = JobFilterOperations.filter(queue, handler, status, search, tags, meta, payload,
					createdFrom, createdBefore);
			return this.filtered.read(name, filter, before, after, limit);
		}
		catch (RefusedException ex) {
			// The message is the reason: the 400's detail says what is wrong with the filter.
			throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
		}
	}

	/**
	 * Retries ({@code action=retry}) a {@code FAILED} job with a fresh set of attempts, or
	 * cancels ({@code action=cancel}) a {@code QUEUED} one, or asks the instance running a
	 * {@code RUNNING} one to stop it; says what happened.
	 */
	public ActionDescriptor jobAction(long id, String action) {
		return jobAction(id, action, null, null, null);
	}

	/**
	 * As {@link #jobAction(long, String)}, and {@code action=retry-from} with {@code record}:
	 * {@link QueueAdmin#retryFrom} a {@code FAILED} durable job, deleting its records from that
	 * one (numbered from 1, as its {@code steps} list them) on. Without {@code record}, or with
	 * one below 1, that is a 400, as is a {@code record} with another action.
	 */
	public ActionDescriptor jobAction(long id, String action, @Nullable Integer record) {
		return jobAction(id, action, record, null, null);
	}

	/** As {@link #jobAction(long, String)}, for the signed-in user, else for {@code by}. */
	public ActionDescriptor jobAction(long id, String action, @Nullable String by, @Nullable Principal principal) {
		return jobAction(id, action, null, by, principal);
	}

	/** As {@link #jobAction(long, String, Integer)}, for the signed-in user, else for {@code by}. */
	@WriteOperation
	public ActionDescriptor jobAction(@Selector long id, String action, @Nullable Integer record,
			@Nullable String by, @Nullable Principal principal) {
		return this.job.act(actingFor(principal, by), id, action, record);
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
			JobFilter filter = JobFilterOperations.filter(queue, handler, status, search, tags, meta, payload,
					createdFrom, createdBefore);
			if (bulk == null) {
				return this.filtered.count(filter);
			}
			return this.filtered.bulk(actingFor(principal, by), action, bulk, filter);
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
		return this.filtered.retryFailed(actingFor(principal, by), action, queue, handler, limit);
	}

}
