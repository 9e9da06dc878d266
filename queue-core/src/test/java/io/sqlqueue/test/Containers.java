package io.sqlqueue.test;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * Database servers in containers, for machines with Docker and no local server.
 * Started once per test run and left to Testcontainers' own clean-up.
 */
final class Containers {

	private static PostgreSQLContainer postgres;

	private Containers() {
	}

	static boolean dockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (Throwable ex) {
			return false;
		}
	}

	static synchronized TestDatabase.ServerAddress postgres() {
		if (postgres == null) {
			postgres = new PostgreSQLContainer("postgres:15-alpine");
			postgres.start();
		}
		return new TestDatabase.ServerAddress(postgres.getJdbcUrl(), postgres.getUsername(), postgres.getPassword());
	}

}
