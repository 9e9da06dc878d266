package io.sqlqueue.internal.store;

import java.util.Set;

/**
 * What a completion flush did with each success it was given: recorded it, passed it over
 * (its job's row, or a row its end settles, was held by another transaction, such as a
 * caller's open transaction that enqueued a job to run after it; the lease still holds, and
 * the success is to be written later), or neither: its lease was lost.
 */
public record CompletedJobs(Set<Lease> recorded, Set<Lease> passedOver) {

	public CompletedJobs {
		recorded = Set.copyOf(recorded);
		passedOver = Set.copyOf(passedOver);
	}

}
