package io.sqlqueue.testkit.docs;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.sqlqueue.test.TestDatabase;

/** The documented durable handler and its test on PostgreSQL, in a schema of their own. */
class DurableStepsDocPostgresIT extends DurableStepsDocScenarios {

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

}
