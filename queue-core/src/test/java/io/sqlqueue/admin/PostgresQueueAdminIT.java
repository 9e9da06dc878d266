package io.sqlqueue.admin;

import io.sqlqueue.test.TestDatabase;

/** {@link QueueAdminConformance} on PostgreSQL. */
class PostgresQueueAdminIT extends QueueAdminConformance {

	@Override
	protected TestDatabase database() {
		return TestDatabase.POSTGRESQL;
	}

}
