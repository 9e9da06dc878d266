package io.sqlqueue.boot.actuate.endpoint;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobQueue;

/**
 * The batches of workflows (docs/workflows.md), for {@link SqlQueueEndpoint}: a batch's
 * progress ({@code GET /sqlqueue/batches/{id}}). A job's place in its workflow is shown with
 * the job ({@link JobOperations}).
 */
final class BatchOperations {

	private final JobQueue jobs;

	BatchOperations(JobQueue jobs) {
		this.jobs = jobs;
	}

	/** The batch with this id and its counts now, or {@code null} when there is none. */
	@Nullable BatchDescriptor read(long id) {
		return this.jobs.batch(id).map(BatchDescriptor::new).orElse(null);
	}

}
