package io.sqlqueue;

import io.sqlqueue.test.TestDatabase;

/**
 * The MariaDB dialect on MySQL 8: runs where Docker is (Testcontainers) or where
 * {@code SQLQUEUE_TEST_MYSQL_URL} points at a server; skipped otherwise.
 */
class MySqlConformanceIT extends QueueConformanceTests {

	@Override
	protected TestDatabase database() {
		return TestDatabase.MYSQL;
	}

}
