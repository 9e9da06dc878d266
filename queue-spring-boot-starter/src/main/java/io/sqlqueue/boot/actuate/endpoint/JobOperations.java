package io.sqlqueue.boot.actuate.endpoint;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

import io.sqlqueue.JobLinks;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.admin.AdminResult;
import io.sqlqueue.admin.QueueAdmin;

/**
 * One job, for {@link SqlQueueEndpoint}: reading it with its place in a workflow, its
 * attempts and its durable progress ({@code GET /sqlqueue/{id}}), and retrying it (also from
 * one of its records) or cancelling it ({@code POST /sqlqueue/{id}}).
 */
final class JobOperations {

	private final JobQueue jobs;

	private final boolean showPayload;

	private final QueueAdmin admin;

	JobOperations(JobQueue jobs, boolean showPayload, QueueAdmin admin) {
		this.jobs = jobs;
		this.showPayload = showPayload;
		this.admin = admin;
	}

	/** As {@link SqlQueueEndpoint#job(long)}. */
	@Nullable JobDescriptor read(long id) {
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

	/**
	 * Retries ({@code action=retry}), retries from a record ({@code action=retry-from} with
	 * {@code record}, 1 or more) or cancels ({@code action=cancel}) the job, as {@code admin}.
	 * A {@code record} with another action is a 400 rather than ignored: an operator who sends
	 * one means a retry from it, and a plain retry would keep the records they meant to delete.
	 */
	ActionDescriptor act(QueueAdmin admin, long id, String action, @Nullable Integer record) {
		if (!action.equals("retry-from") && record != null) {
			throw new InvalidEndpointRequestException("'record' is only for action 'retry-from', not '" + action + "'",
					"Unexpected record");
		}
		AdminResult result = switch (action) {
			case "retry" -> admin.retry(id);
			case "cancel" -> admin.cancel(id);
			case "retry-from" -> admin.retryFrom(id, firstRecord(record));
			default -> throw new InvalidEndpointRequestException(
					"Unknown action '" + action + "'; use 'retry', 'retry-from' or 'cancel'", "Unknown action");
		};
		return new ActionDescriptor(id, action, result.done(), result.status(), result.message());
	}

	/** The record a retry from one starts at: numbered from 1, as the job's {@code steps} list them. */
	private static int firstRecord(@Nullable Integer record) {
		if (record == null) {
			throw new InvalidEndpointRequestException("Action 'retry-from' needs 'record': the number, from 1, of "
					+ "the first of the job's records to delete", "Missing record");
		}
		if (record < 1) {
			throw new InvalidEndpointRequestException("'record' is numbered from 1, as the job's steps list them; "
					+ record + " is not a record", "Invalid record");
		}
		return record;
	}

}
