package io.sqlqueue.admin;

import org.junit.jupiter.api.parallel.ResourceLock;

import io.sqlqueue.test.TestDatabase;

/** {@link QueueAdminConformance} on PostgreSQL. */
@ResourceLock(TestDatabase.POSTGRESQL_SERVER)
class PostgresQueueAdminIT extends QueueAdminConformance {

	@Override
	protected TestDatabase database() {
		return TestDatabase.POSTGRESQL;
	}

}
