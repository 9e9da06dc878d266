package io.sqlqueue.internal.store;

import java.util.List;

import io.sqlqueue.DependencyFailure;

/**
 * Jobs to insert together with what links them: per job (by its index in {@code jobs}), the
 * ids of jobs enqueued before that it runs after ({@code earlier}), the indexes of jobs of
 * this list that it runs after ({@code within}, always lower than its own), and its policy
 * for a failed dependency. With {@code batch}, every job but the callback (at index
 * {@code callback}, or -1 for none) is a member of one new batch.
 */
public record LinkedJobs(List<NewJob> jobs, List<List<Long>> earlier, List<List<Integer>> within,
		List<DependencyFailure> policies, boolean batch, int callback) {

	public LinkedJobs {
		if (earlier.size() != jobs.size() || within.size() != jobs.size() || policies.size() != jobs.size()) {
			throw new IllegalArgumentException("One list of links per job");
		}
		for (int i = 0; i < within.size(); i++) {
			for (int dependency : within.get(i)) {
				if (dependency < 0 || dependency >= i) {
					throw new IllegalArgumentException("Job " + i + " may run after earlier jobs of the list only");
				}
			}
		}
	}

	boolean isMember(int index) {
		return this.batch && index != this.callback;
	}

}
