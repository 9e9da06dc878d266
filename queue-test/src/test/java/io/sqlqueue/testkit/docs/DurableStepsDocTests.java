package io.sqlqueue.testkit.docs;

import java.util.UUID;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The documented durable handler and its test on an embedded H2 database, as most applications' tests run. */
class DurableStepsDocTests extends DurableStepsDocScenarios {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
	}

}
