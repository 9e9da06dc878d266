package io.sqlqueue;

import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.test.TestDatabase;

/** The optimistic compare-and-set claim, the one for any database, on MariaDB. */
class MariaDbCompareAndSetConformanceIT extends QueueConformanceTests {

	@Override
	protected TestDatabase database() {
		return TestDatabase.MARIADB;
	}

	@Override
	protected ClaimMethod claimMethod() {
		return ClaimMethod.COMPARE_AND_SET;
	}

}
