package io.sqlqueue.testkit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.sqlqueue.test.TestDatabase;

/** The test kit on PostgreSQL (the server {@link TestDatabase} finds or starts), in a schema of its own. */
class SqlQueueTesterPostgresIT extends SqlQueueTesterScenarios {

	private static TestDatabase.Isolated database;

	@BeforeAll
	static void findServer() {
		database = TestDatabase.POSTGRESQL.isolated();
	}

	@AfterAll
	static void dropSchema() {
		database.close();
	}

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> database.url());
		registry.add("spring.datasource.username", () -> database.user());
		registry.add("spring.datasource.password", () -> database.password());
		registry.add("sqlqueue.jdbc.schema", () -> database.schema());
	}

	@Override
	protected String table(String name) {
		return database.schema() + "." + name;
	}

}
