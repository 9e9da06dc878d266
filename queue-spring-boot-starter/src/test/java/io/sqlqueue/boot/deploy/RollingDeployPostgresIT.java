package io.sqlqueue.boot.deploy;

import org.junit.jupiter.api.parallel.ResourceLock;

import io.sqlqueue.test.TestDatabase;

/** {@link RollingDeployScenario} on PostgreSQL. */
@ResourceLock(TestDatabase.POSTGRESQL_SERVER)
class RollingDeployPostgresIT extends RollingDeployScenario {

	@Override
	protected TestDatabase testDatabase() {
		return TestDatabase.POSTGRESQL;
	}

}
