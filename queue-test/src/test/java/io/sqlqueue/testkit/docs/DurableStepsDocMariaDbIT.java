package io.sqlqueue.testkit.docs;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.sqlqueue.test.TestDatabase;

/** The documented durable handler and its test on MariaDB, in a database of their own. */
class DurableStepsDocMariaDbIT extends DurableStepsDocScenarios {

	private static TestDatabase.Isolated database;

	@BeforeAll
	static void findServer() {
		database = TestDatabase.MARIADB.isolated();
	}

	@AfterAll
	static void dropDatabase() {
		database.close();
	}

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> database.url());
		registry.add("spring.datasource.username", () -> database.user());
		registry.add("spring.datasource.password", () -> database.password());
	}

}
