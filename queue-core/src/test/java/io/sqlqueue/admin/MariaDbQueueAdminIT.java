package io.sqlqueue.admin;

import io.sqlqueue.test.TestDatabase;

/** {@link QueueAdminConformance} on MariaDB. */
class MariaDbQueueAdminIT extends QueueAdminConformance {

	@Override
	protected TestDatabase database() {
		return TestDatabase.MARIADB;
	}

}
