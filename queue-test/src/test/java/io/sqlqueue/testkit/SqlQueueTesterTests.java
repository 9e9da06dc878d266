package io.sqlqueue.testkit;

import java.util.UUID;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The test kit on an embedded H2 database, as most applications' tests run. */
class SqlQueueTesterTests extends SqlQueueTesterScenarios {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
	}

	@Override
	protected String table(String name) {
		return name;
	}

}
