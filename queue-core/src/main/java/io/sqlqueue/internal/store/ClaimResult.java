package io.sqlqueue.internal.store;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobRecord;

/**
 * What a claim took, in the order the jobs should run; whether the queue has limits
 * ({@code limited}: its claims take turns), and what held due jobs back:
 * {@code throttledFor}, how long until a rate limit that held jobs back allows another start
 * ({@code null} when none did), and {@code heldByConcurrency}, whether a limit on running jobs
 * did (then a job of the queue that ends may free room).
 */
public record ClaimResult(List<JobRecord> jobs, boolean limited, @Nullable Duration throttledFor,
		boolean heldByConcurrency) {

	/** The order in which claimed jobs should run: priority, due time, id. */
	public static final Comparator<JobRecord> RUN_ORDER = JobClaims::runOrder;

	/** Nothing claimed, nothing held back. */
	public static final ClaimResult NONE = new ClaimResult(List.of(), false, null, false);

	public ClaimResult {
		jobs = List.copyOf(jobs);
	}

	/** These jobs, claimed without limits. */
	public static ClaimResult of(List<JobRecord> jobs) {
		return new ClaimResult(jobs, false, null, false);
	}

}
