package io.sqlqueue.sample;

import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample starts on its H2 database without warnings a user can do nothing about: Flyway
 * warns on every start that the H2 of Spring Boot's dependency management is newer than the
 * H2 Flyway was verified with, once for the application's migrations and once for the
 * queue's, and {@code application.yml} quiets that logger.
 */
@ExtendWith(OutputCaptureExtension.class)
class QuietStartTests {

	@Test
	void startsOnH2WithoutFlywaysVersionWarning(CapturedOutput output) {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.run("--spring.main.web-application-type=none",
					"--spring.datasource.url=jdbc:h2:mem:quiet-start-" + UUID.randomUUID())) {
			assertThat(output).as("Flyway migrated, and its log is on")
				.contains("Successfully applied")
				.doesNotContain("newer than the version Flyway has been verified with");
		}
	}

}
