package io.sqlqueue;

import java.util.List;

/**
 * The jobs a job is linked with through dependencies, both ways and as far as they go (up to
 * {@link #MAX_JOBS}), each in its state now, and the edges between them: the workflow's
 * state, for people looking at it.
 * @param jobs the jobs, by id
 * @param edges each {@code [dependency, dependent]}: the second runs after the first
 * @param truncated whether the workflow has more jobs than shown
 */
public record WorkflowGraph(List<JobLinks.LinkedJob> jobs, List<long[]> edges, boolean truncated) {

	/** The most jobs a graph shows. */
	public static final int MAX_JOBS = 200;

}
