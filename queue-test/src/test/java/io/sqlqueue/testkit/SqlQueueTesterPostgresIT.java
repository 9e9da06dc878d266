package io.sqlqueue.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.UUID;

import org.junit.jupiter.api.BeforeAll;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The test kit on PostgreSQL ({@code SQLQUEUE_TEST_POSTGRES_URL}, by default
 * {@code jdbc:postgresql://127.0.0.1:5432/test} as {@code postgres}), in a schema of its own.
 * Skipped when no server answers, unless {@code SQLQUEUE_TEST_REQUIRE_DATABASES} names
 * {@code postgresql}.
 */
class SqlQueueTesterPostgresIT extends SqlQueueTesterScenarios {

	private static final String URL = System.getenv().getOrDefault("SQLQUEUE_TEST_POSTGRES_URL",
			"jdbc:postgresql://127.0.0.1:5432/test");

	private static final String USER = System.getenv().getOrDefault("SQLQUEUE_TEST_POSTGRES_USER", "postgres");

	private static final String PASSWORD = System.getenv().getOrDefault("SQLQUEUE_TEST_POSTGRES_PASSWORD", "");

	private static final String SCHEMA = "sqlqueue_kit_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	@BeforeAll
	static void requireServer() {
		try (Connection connection = DriverManager.getConnection(URL, USER, PASSWORD)) {
			connection.isValid(2);
		}
		catch (SQLException ex) {
			serverMissing("PostgreSQL", URL, "SQLQUEUE_TEST_POSTGRES_URL", ex);
		}
	}

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> URL);
		registry.add("spring.datasource.username", () -> USER);
		registry.add("spring.datasource.password", () -> PASSWORD);
		registry.add("sqlqueue.jdbc.schema", () -> SCHEMA);
	}

	@Override
	protected String table(String name) {
		return SCHEMA + "." + name;
	}

}
