package io.sqlqueue.boot.autoconfigure;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;

import javax.sql.DataSource;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.postgresql.PostgresDialect;
import io.sqlqueue.internal.store.postgresql.PostgresNotifications;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The auto-configuration on PostgreSQL ({@code SQLQUEUE_TEST_POSTGRES_URL}, by default
 * {@code jdbc:postgresql://127.0.0.1:5432/test} as {@code postgres}), each test in its
 * own schema. Skipped when no server answers, unless {@code SQLQUEUE_TEST_REQUIRE_DATABASES}
 * names {@code postgresql}.
 */
class SqlQueueAutoConfigurationPostgresIT {

	private static final String URL = System.getenv().getOrDefault("SQLQUEUE_TEST_POSTGRES_URL",
			"jdbc:postgresql://127.0.0.1:5432/test");

	private static final String USER = System.getenv().getOrDefault("SQLQUEUE_TEST_POSTGRES_USER", "postgres");

	private static final String PASSWORD = System.getenv().getOrDefault("SQLQUEUE_TEST_POSTGRES_PASSWORD", "");

	private final String schema = "sqlqueue_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + URL, "spring.datasource.username=" + USER,
				"spring.datasource.password=" + PASSWORD, "sqlqueue.jdbc.schema=" + this.schema,
				"sqlqueue.manager.poll-interval=50ms", "sqlqueue.manager.shutdown-timeout=1s");

	@BeforeAll
	static void requireServer() {
		try (Connection connection = DriverManager.getConnection(URL, USER, PASSWORD)) {
			assertThat(connection.isValid(2)).isTrue();
		}
		catch (SQLException ex) {
			String required = System.getenv().getOrDefault("SQLQUEUE_TEST_REQUIRE_DATABASES", "");
			if (required.toLowerCase(Locale.ROOT).contains("postgresql")) {
				throw new IllegalStateException("PostgreSQL is required but does not answer at " + URL, ex);
			}
			Assumptions.abort("No PostgreSQL at " + URL + " (" + ex.getMessage()
					+ "); start one there or set SQLQUEUE_TEST_POSTGRES_URL to run these tests");
		}
	}

	@Test
	void detectsPostgresqlAndMigratesIntoItsSchema() {
		this.runner.run((context) -> {
			try {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(Dialect.class)).isInstanceOf(PostgresDialect.class);
				assertThat(context.getBean(JobStore.class).claimMethod()).isEqualTo(ClaimMethod.UPDATE_RETURNING);
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				assertThat(jdbc.queryForList("SELECT table_name FROM information_schema.tables WHERE table_schema = ?",
						String.class, this.schema))
					.containsExactlyInAnyOrder("queue_job", "queue_schedule", "queue_limit", "queue_flow",
							"queue_rate_window", "queue_dependency", "queue_batch", "queue_paused", "queue_instance",
							"sqlqueue_schema_history");
			}
			finally {
				dropSchema();
			}
		});
	}

	@Test
	void runsAJobWithTheDialectsClaim() {
		this.runner.withBean("greeter", JobHandlerRegistrationTests.Greeter.class).run((context) -> {
			try {
				JobQueue jobs = context.getBean(JobQueue.class);
				long id = jobs.enqueue("greet", new JobHandlerRegistrationTests.Greeting("Edsger"));
				JobRecord done = await().atMost(Duration.ofSeconds(10))
					.until(() -> jobs.find(id).orElseThrow(), (job) -> job.status().isFinished());
				assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
				assertThat(done.result()).isEqualTo("\"Hello, Edsger (attempt 1)\"");
			}
			finally {
				dropSchema();
			}
		});
	}

	@Test
	void claimsWithCompareAndSetWhenAsked() {
		this.runner.withBean("greeter", JobHandlerRegistrationTests.Greeter.class)
			.withPropertyValues("sqlqueue.jdbc.claim-method=compare-and-set")
			.run((context) -> {
				try {
					assertThat(context.getBean(JobStore.class).claimMethod()).isEqualTo(ClaimMethod.COMPARE_AND_SET);
					JobQueue jobs = context.getBean(JobQueue.class);
					long id = jobs.enqueue("ping", null);
					await().atMost(Duration.ofSeconds(10))
						.until(() -> jobs.find(id).orElseThrow().status() == JobStatus.SUCCEEDED);
				}
				finally {
					dropSchema();
				}
			});
	}

	@Test
	void idleInstanceIsWokenByAnEnqueueOfAnotherInstance() {
		this.runner.withBean("greeter", JobHandlerRegistrationTests.Greeter.class)
			.withPropertyValues("sqlqueue.manager.poll-interval=2m")
			.run((worker) -> {
				try {
					PostgresNotifications notifications = worker.getBean(PostgresNotifications.class);
					await().atMost(Duration.ofSeconds(10)).until(notifications::isListening);
					this.runner.withPropertyValues("sqlqueue.manager.enabled=false").run((producer) -> {
						JobQueue jobs = producer.getBean(JobQueue.class);
						long id = jobs.enqueue("ping", null);
						await().atMost(Duration.ofSeconds(30))
							.until(() -> jobs.find(id).orElseThrow().status() == JobStatus.SUCCEEDED);
					});
				}
				finally {
					dropSchema();
				}
			});
	}

	@Test
	void vacuumsItsTableWhenAutovacuumIsOff() {
		this.runner.run((context) -> {
			try {
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				boolean autovacuumOff = "off".equals(jdbc.queryForObject("SHOW autovacuum", String.class));
				assertThat(context.getBean(io.sqlqueue.internal.maintenance.Vacuumer.class).isRunning()).isEqualTo(autovacuumOff);
			}
			finally {
				dropSchema();
			}
		});
	}

	@Test
	void noListenerWithoutNotify() {
		this.runner.withBean("greeter", JobHandlerRegistrationTests.Greeter.class)
			.withPropertyValues("sqlqueue.jdbc.notify=false")
			.run((context) -> {
				try {
					assertThat(context).hasNotFailed();
					assertThat(context.getBeanProvider(PostgresNotifications.class).getIfAvailable()).isNull();
				}
				finally {
					dropSchema();
				}
			});
	}

	private void dropSchema() throws SQLException {
		try (Connection connection = DriverManager.getConnection(URL, USER, PASSWORD)) {
			connection.createStatement().execute("DROP SCHEMA IF EXISTS " + this.schema + " CASCADE");
		}
	}

}
