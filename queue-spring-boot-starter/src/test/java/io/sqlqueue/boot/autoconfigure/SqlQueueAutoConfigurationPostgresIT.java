package io.sqlqueue.boot.autoconfigure;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
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
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The auto-configuration on PostgreSQL (the server {@link TestDatabase} finds or starts),
 * each test in its own schema.
 */
class SqlQueueAutoConfigurationPostgresIT {

	/** The server TestDatabase finds or starts; each test migrates into a schema of its own beside it. */
	private static TestDatabase.Isolated database;

	private final String schema = "sqlqueue_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + database.url(), "spring.datasource.username=" + database.user(),
				"spring.datasource.password=" + database.password(), "sqlqueue.jdbc.schema=" + this.schema,
				"sqlqueue.manager.poll-interval=50ms", "sqlqueue.manager.shutdown-timeout=1s");

	@BeforeAll
	static void findServer() {
		database = TestDatabase.POSTGRESQL.isolated();
	}

	@AfterAll
	static void closeServer() {
		database.close();
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
							"queue_rate_window", "queue_dependency", "queue_batch", "sqlqueue_schema_history");
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
		try (Connection connection = DriverManager.getConnection(database.url(), database.user(), database.password())) {
			connection.createStatement().execute("DROP SCHEMA IF EXISTS " + this.schema + " CASCADE");
		}
	}

}
