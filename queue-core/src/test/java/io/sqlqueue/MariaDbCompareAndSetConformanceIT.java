package io.sqlqueue;

import org.junit.jupiter.api.parallel.ResourceLock;

import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.test.TestDatabase;

/** The optimistic compare-and-set claim, the one for any database, on MariaDB. */
@ResourceLock(TestDatabase.MARIADB_SERVER)
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
