package io.sqlqueue.boot.actuate.endpoint;

import java.util.List;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.DependencyFailure;
import io.sqlqueue.JobLinks;
import io.sqlqueue.WorkflowGraph;

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
