package io.sqlqueue;

import io.sqlqueue.internal.store.ClaimMethod;

/** The optimistic compare-and-set claim, the one for any database, on H2. */
class H2CompareAndSetConformanceTests extends H2ConformanceTests {

	@Override
	protected ClaimMethod claimMethod() {
		return ClaimMethod.COMPARE_AND_SET;
	}

}
