package io.sqlqueue.testkit;

import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.sqlqueue.JobHandler;
import io.sqlqueue.JobQueue;
import io.sqlqueue.PayloadDecodingException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The kit decodes enqueued payloads as their handlers will: strictly, unless the handler is lenient. */
@SpringBootTest(classes = SqlQueueTesterPayloadTests.App.class)
class SqlQueueTesterPayloadTests {

	@Autowired
	private JobQueue jobs;

	@Autowired
	private SqlQueueTester tester;

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
	}

	@Test
	void aPayloadOfTheWrongShapeFailsAsTheHandlerWouldFailIt() {
		this.jobs.enqueue("mail.welcome", Map.of("customer", "acme", "copies", 7));
		assertThatThrownBy(() -> this.tester.enqueued("mail.welcome", WelcomeMail.class))
			.isInstanceOf(PayloadDecodingException.class)
			.hasMessageContaining("'email'");
		this.jobs.enqueue("mail.legacy", Map.of("email", "ada@example.com", "customer", "acme"));
		assertThat(this.tester.enqueued("mail.legacy", WelcomeMail.class))
			.containsExactly(new WelcomeMail("ada@example.com", null));
	}

	record WelcomeMail(String email, String name) {
	}

	static class Mailer {

		@JobHandler("mail.welcome")
		void welcome(WelcomeMail mail) {
		}

		@JobHandler(value = "mail.legacy", lenientPayload = true)
		void legacy(WelcomeMail mail) {
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		Mailer mailer() {
			return new Mailer();
		}

	}

}
