package io.sqlqueue.testkit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.sqlqueue.test.TestDatabase;

/** The test kit on MariaDB (the server {@link TestDatabase} finds or starts), in a database of its own. */
class SqlQueueTesterMariaDbIT extends SqlQueueTesterScenarios {

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

	@Override
	protected String table(String name) {
		return name;
	}

	@Override
	protected String quoted(String name) {
		return "`" + name + "`";
	}

}
