package io.sqlqueue.sample;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

import io.sqlqueue.JobOutcome;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.postgresql.PostgresDialect;
import io.sqlqueue.sample.SignupService.Signup;
import io.sqlqueue.testkit.SqlQueueTester;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example in docs/testing.md of an application test on PostgreSQL in a container: Testcontainers
 * starts it, {@code @ServiceConnection} points the application's data source at it, the queue
 * migrates its table there at start-up, and the test kit runs the job on it. Skipped, with a
 * message saying so, where Docker is not available.
 */
@SpringBootTest
@Testcontainers
@EnabledIf(value = "dockerAvailable",
		disabledReason = "Docker is not available: this test starts PostgreSQL in a container; start Docker to run it")
class PostgresContainerTests {

	@Container
	@ServiceConnection
	static PostgreSQLContainer postgres = new PostgreSQLContainer("postgres:17-alpine");

	@Autowired
	private SignupService signups;

	@Autowired
	private SqlQueueTester jobs;

	@Autowired
	private Dialect dialect;

	@Test
	void signUpMailsTheUserThroughTheQueueOnPostgresql() {
		assertThat(this.dialect).isInstanceOf(PostgresDialect.class);

		Signup signup = this.signups.signUp("ada@example.com", "Ada");

		assertThat(this.jobs.assertEnqueued("mail.welcome", WelcomeMail.class))
			.containsExactly(new WelcomeMail(signup.userId(), "ada@example.com", "Ada"));
		assertThat(this.jobs.runDue()).singleElement().satisfies((ran) -> {
			assertThat(ran.id()).isEqualTo(signup.welcomeJobId());
			assertThat(ran.outcome()).isEqualTo(JobOutcome.SUCCEEDED);
			assertThat(ran.result(MailReceipt.class).recipient()).isEqualTo("ada@example.com");
		});
		assertThat(this.jobs.enqueued("mail.followup")).extracting((job) -> job.id())
			.containsExactly(signup.followupJobId());
	}

	static boolean dockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (Throwable ex) {
			return false;
		}
	}

}
