package io.sqlqueue.sample;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.ActiveProfiles;

import io.sqlqueue.JobOutcome;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.postgresql.PostgresDialect;
import io.sqlqueue.sample.SignupService.Signup;
import io.sqlqueue.testkit.SqlQueueTester;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code embedded-postgres} profile boots the sample on a PostgreSQL it starts itself. */
@SpringBootTest
@ActiveProfiles("embedded-postgres")
class EmbeddedPostgresProfileIT {

	@Autowired
	private SignupService signups;

	@Autowired
	private SqlQueueTester jobs;

	@Autowired
	private Dialect dialect;

	@Autowired
	private JdbcTemplate jdbc;

	@Test
	void runsOnTheEmbeddedPostgresql() {
		assertThat(this.dialect).isInstanceOf(PostgresDialect.class);
		assertThat(this.jdbc.queryForObject("SELECT version()", String.class)).startsWith("PostgreSQL 18");

		Signup signup = this.signups.signUp("ada@example.com", "Ada");

		assertThat(this.jobs.runDue()).singleElement().satisfies((ran) -> {
			assertThat(ran.id()).isEqualTo(signup.welcomeJobId());
			assertThat(ran.outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		});
	}

}
