package io.sqlqueue;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Where a job stands in a workflow: the jobs it runs after and those that run after it, each
 * with its state now, what it still waits for, and its batch.
 * @param dependencies the jobs it runs after (a pruned one is left out)
 * @param dependents the jobs that run after it (a pruned one is left out)
 * @param waitingFor how many of its dependencies (and, for a callback, its batch) have not
 * ended yet; the job is {@code WAITING} while this is more than 0
 * @param onDependencyFailure what a dependency that fails or is cancelled does to it
 * @param batch the batch it belongs to, or {@code null}
 * @param callbackOf the batch whose callback it is, or {@code null}
 */
public record JobLinks(long jobId, List<LinkedJob> dependencies, List<LinkedJob> dependents, int waitingFor,
		DependencyFailure onDependencyFailure, @Nullable BatchProgress batch, @Nullable BatchProgress callbackOf) {

	/** Whether the job takes part in a workflow: it has dependencies or dependents, or a batch it is in or calls back. */
	public boolean inWorkflow() {
		return !this.dependencies.isEmpty() || !this.dependents.isEmpty() || this.batch != null
				|| this.callbackOf != null;
	}

	/** A job at the other end of a dependency, in its state now. */
	public record LinkedJob(long id, String handler, JobStatus status) {
	}

}
