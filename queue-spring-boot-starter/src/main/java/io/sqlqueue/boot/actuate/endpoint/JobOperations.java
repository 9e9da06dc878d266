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
 * attempts and its durable progress ({@code GET /sqlqueue/{id}}), and retrying or cancelling
 * it ({@code POST /sqlqueue/{id}}).
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

	/** Retries ({@code action=retry}) or cancels ({@code action=cancel}) the job, as {@code admin}. */
	ActionDescriptor act(QueueAdmin admin, long id, String action) {
		if (!action.equals("retry") && !action.equals("cancel")) {
			throw new InvalidEndpointRequestException("Unknown action '" + action + "'; use 'retry' or 'cancel'",
					"Unknown action");
		}
		AdminResult result = action.equals("retry") ? admin.retry(id) : admin.cancel(id);
		return new ActionDescriptor(id, action, result.done(), result.status(), result.message());
	}

}
