package io.sqlqueue.dashboard;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.BatchProgress;
import io.sqlqueue.DependencyFailure;
import io.sqlqueue.JobLinks.LinkedJob;
import io.sqlqueue.JobLinks;
import io.sqlqueue.WorkflowGraph;

/**
 * A job's place in a workflow as the job page shows it: what it waits for, the jobs it runs
 * after and those that run after it, its batch, and the whole workflow around it in levels:
 * each job one level after the deepest job it runs after, so a level runs after the ones
 * above it.
 *
 * @param waitingFor how many of its dependencies (and, for a callback, its batch) have not ended
 * @param batch the batch it belongs to, or {@code null}
 * @param callbackOf the batch whose callback it is, or {@code null}
 * @param levels the workflow's jobs by level, the roots first
 * @param edges each {@code [dependency, dependent]}
 * @param truncated whether the workflow has more jobs than shown
 */
public record WorkflowView(int waitingFor, DependencyFailure onDependencyFailure, List<LinkedJob> dependencies,
		List<LinkedJob> dependents, @Nullable BatchProgress batch, @Nullable BatchProgress callbackOf,
		List<List<LinkedJob>> levels, List<long[]> edges, boolean truncated) {

	/** The view of a job in a workflow ({@link JobLinks#inWorkflow()}). */
	static WorkflowView of(JobLinks links, WorkflowGraph graph) {
		return new WorkflowView(links.waitingFor(), links.onDependencyFailure(), links.dependencies(),
				links.dependents(), links.batch(), links.callbackOf(), levels(graph), graph.edges(),
				graph.truncated());
	}

	private static List<List<LinkedJob>> levels(WorkflowGraph graph) {
		Map<Long, Integer> level = new HashMap<>();
		graph.jobs().forEach((job) -> level.put(job.id(), 0));
		// Longest path from a root: an edge's dependent sits below its dependency. Edges only
		// point from jobs to later ones, so at most one pass per job settles every level.
		for (int pass = 0; pass < graph.jobs().size(); pass++) {
			boolean changed = false;
			for (long[] edge : graph.edges()) {
				int below = level.get(edge[0]) + 1;
				if (level.get(edge[1]) < below) {
					level.put(edge[1], below);
					changed = true;
				}
			}
			if (!changed) {
				break;
			}
		}
		List<List<LinkedJob>> levels = new ArrayList<>();
		for (LinkedJob job : graph.jobs()) {
			int at = level.get(job.id());
			while (levels.size() <= at) {
				levels.add(new ArrayList<>());
			}
			levels.get(at).add(job);
		}
		return levels;
	}

}
