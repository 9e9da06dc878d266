package io.sqlqueue.internal.store;

import java.util.List;
import java.util.Set;

/**
 * What a heartbeat did to each lease it was given: extended it on its job's row, passed the
 * row over (it was locked by another transaction, such as a caller's open transaction that
 * enqueued a job to run after it) and wrote the lease's new expiry beside it instead
 * ({@code queue_lease_extension}: the lease holds as if extended), or found it lost (the job
 * no longer runs under it).
 */
public record ExtendedLeases(Set<Lease> extended, Set<Lease> passedOver, List<Lease> lost) {

	/** Nothing asked, nothing done. */
	public static final ExtendedLeases NONE = new ExtendedLeases(Set.of(), Set.of(), List.of());

	public ExtendedLeases {
		extended = Set.copyOf(extended);
		passedOver = Set.copyOf(passedOver);
		lost = List.copyOf(lost);
	}

}
