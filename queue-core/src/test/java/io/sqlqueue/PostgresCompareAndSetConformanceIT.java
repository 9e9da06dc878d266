package io.sqlqueue;

import io.sqlqueue.internal.store.ClaimMethod;

/** The optimistic compare-and-set claim, the one for any database, on PostgreSQL. */
class PostgresCompareAndSetConformanceIT extends PostgresConformanceIT {

	@Override
	protected ClaimMethod claimMethod() {
		return ClaimMethod.COMPARE_AND_SET;
	}

	/** The fallback's exactly-once test as on the other databases; 10,000 jobs stay the dialect's own claim's. */
	@Override
	public int concurrencyJobs() {
		return 2_000;
	}

}
