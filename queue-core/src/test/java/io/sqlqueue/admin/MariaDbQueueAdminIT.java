package io.sqlqueue.admin;

import org.junit.jupiter.api.parallel.ResourceLock;

import io.sqlqueue.test.TestDatabase;

/** {@link QueueAdminConformance} on MariaDB. */
@ResourceLock(TestDatabase.MARIADB_SERVER)
class MariaDbQueueAdminIT extends QueueAdminConformance {

	@Override
	protected TestDatabase database() {
		return TestDatabase.MARIADB;
	}

}
