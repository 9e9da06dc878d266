package io.sqlqueue.boot.deploy;

import org.junit.jupiter.api.parallel.ResourceLock;

import io.sqlqueue.test.TestDatabase;

/** {@link RollingDeployScenario} on MariaDB. */
@ResourceLock(TestDatabase.MARIADB_SERVER)
class RollingDeployMariaDbIT extends RollingDeployScenario {

	@Override
	protected TestDatabase testDatabase() {
		return TestDatabase.MARIADB;
	}

}
