package io.sqlqueue.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import org.junit.jupiter.api.BeforeAll;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The test kit on MariaDB ({@code SQLQUEUE_TEST_MARIADB_URL}, by default
 * {@code jdbc:mariadb://127.0.0.1:3306/test} as {@code root}), in a database of its own.
 * Skipped when no server answers, unless {@code SQLQUEUE_TEST_REQUIRE_DATABASES} names
 * {@code mariadb}.
 */
class SqlQueueTesterMariaDbIT extends SqlQueueTesterScenarios {

	private static final String URL = System.getenv().getOrDefault("SQLQUEUE_TEST_MARIADB_URL",
			"jdbc:mariadb://127.0.0.1:3306/test");

	private static final String USER = System.getenv().getOrDefault("SQLQUEUE_TEST_MARIADB_USER", "root");

	private static final String PASSWORD = System.getenv().getOrDefault("SQLQUEUE_TEST_MARIADB_PASSWORD", "");

	private static final String DATABASE = "sqlqueue_kit_"
			+ UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	@BeforeAll
	static void createDatabase() {
		try (Connection connection = DriverManager.getConnection(URL, USER, PASSWORD);
				Statement statement = connection.createStatement()) {
			statement.execute("CREATE DATABASE " + DATABASE);
		}
		catch (SQLException ex) {
			serverMissing("MariaDB", URL, "SQLQUEUE_TEST_MARIADB_URL", ex);
		}
	}

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> URL.substring(0, URL.lastIndexOf('/') + 1) + DATABASE);
		registry.add("spring.datasource.username", () -> USER);
		registry.add("spring.datasource.password", () -> PASSWORD);
	}

	@Override
	protected String table(String name) {
		return name;
	}

	@Override
	protected String quoted(String name) {
		return "`" + name + "`";
	}

}
