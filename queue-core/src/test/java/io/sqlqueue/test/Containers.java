package io.sqlqueue.test;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.JdbcDatabaseContainer;
import org.testcontainers.mariadb.MariaDBContainer;
import org.testcontainers.mysql.MySQLContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * Database servers in containers, for machines with Docker and no local server.
 * Started once per test run and left to Testcontainers' own clean-up. MariaDB and MySQL
 * run as root, which may create the per-test databases, and are reached through the
 * MariaDB driver.
 */
final class Containers {

	private static PostgreSQLContainer postgres;

	private static MariaDBContainer mariadb;

	private static MySQLContainer mysql;

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
		return address(postgres, postgres.getJdbcUrl());
	}

	static synchronized TestDatabase.ServerAddress mariadb() {
		if (mariadb == null) {
			mariadb = new MariaDBContainer("mariadb:10.11").withUsername("root");
			mariadb.start();
		}
		return address(mariadb, mariadb.getJdbcUrl());
	}

	static synchronized TestDatabase.ServerAddress mysql() {
		if (mysql == null) {
			mysql = new MySQLContainer("mysql:8.0").withUsername("root");
			mysql.start();
		}
		// The MariaDB driver speaks to MySQL too; it needs the key for caching_sha2_password over plain TCP.
		String url = "jdbc:mariadb://" + mysql.getHost() + ":" + mysql.getMappedPort(3306) + "/"
				+ mysql.getDatabaseName() + "?allowPublicKeyRetrieval=true";
		return address(mysql, url);
	}

	private static TestDatabase.ServerAddress address(JdbcDatabaseContainer<?> container, String url) {
		return new TestDatabase.ServerAddress(url, container.getUsername(), container.getPassword());
	}

}
