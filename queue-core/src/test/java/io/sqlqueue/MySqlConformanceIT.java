package io.sqlqueue;

import org.junit.jupiter.api.parallel.ResourceLock;

import io.sqlqueue.test.TestDatabase;

/**
 * The MariaDB dialect on MySQL 8: runs where Docker is (Testcontainers) or where
 * {@code SQLQUEUE_TEST_MYSQL_URL} points at a server; skipped otherwise.
 */
@ResourceLock(TestDatabase.MYSQL_SERVER)
class MySqlConformanceIT extends QueueConformanceTests {

	@Override
	protected TestDatabase database() {
		return TestDatabase.MYSQL;
	}

}
