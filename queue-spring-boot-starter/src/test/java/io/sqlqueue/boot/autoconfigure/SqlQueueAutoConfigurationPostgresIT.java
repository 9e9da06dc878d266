package io.sqlqueue.boot.autoconfigure;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.Job;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.boot.autoconfigure.health.SqlQueueHealthContributorAutoConfiguration;
import io.sqlqueue.boot.health.SqlQueueHealthIndicator;
import io.sqlqueue.internal.maintenance.QueueStats;
import io.sqlqueue.internal.maintenance.TableHealthMonitor;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;
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
							"queue_rate_window", "queue_dependency", "queue_batch", "queue_paused", "queue_instance",
							"queue_attempt", "queue_audit", "queue_job_tag", "queue_job_meta", "queue_count", "queue_count_turn",
							"queue_fairness", "queue_fair_key", "queue_job_step", "queue_job_signal", "queue_lease_extension",
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

	/**
	 * A REPEATABLE READ transaction held open in another session, once the queue has dead rows
	 * and the transaction is older than the maximum horizon age, turns health to WARN with its
	 * pid and application name; once it ends it no longer shows.
	 */
	@Test
	void healthWarnsWhileATransactionHoldsTheQueuesDeadRowsBack() {
		this.runner.withConfiguration(AutoConfigurations.of(SqlQueueHealthContributorAutoConfiguration.class))
			.withPropertyValues("management.health.sqlqueue.max-horizon-age=200ms",
					"sqlqueue.maintenance.table-health-interval=1h")
			.run((context) -> {
				try {
					TableHealthMonitor monitor = context.getBean(TableHealthMonitor.class);
					SqlQueueHealthIndicator indicator = context.getBean(SqlQueueHealthIndicator.class);
					context.getBean(QueueStats.class).refresh();
					long pid;
					try (Connection holder = DriverManager.getConnection(database.url(), database.user(), database.password())) {
						holder.createStatement().execute("SET application_name = 'horizon-holder'");
						holder.setAutoCommit(false);
						holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
						ResultSet session = holder.createStatement().executeQuery("SELECT pg_backend_pid()");
						session.next();
						pid = session.getLong(1);
						holder.createStatement().executeQuery("SELECT count(*) FROM " + this.schema + ".queue_job");
						leaveDeadRows(context.getBean(JobQueue.class), context.getBean(JobStore.class));
						await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
							monitor.refresh();
							Health health = indicator.health();
							assertThat(health.getStatus()).isEqualTo(new Status("WARN"));
							assertThat(health.getDetails().get("horizon")).asInstanceOf(InstanceOfAssertFactories.LIST)
								.anySatisfy((held) -> assertThat(held).asInstanceOf(InstanceOfAssertFactories.MAP)
									.containsEntry("pid", pid)
									.containsEntry("application", "horizon-holder")
									.containsEntry("state", "idle in transaction")
									.containsKey("age"));
						});
						holder.rollback();
					}
					monitor.refresh();
					Health after = indicator.health();
					Object horizon = after.getDetails().get("horizon");
					if (horizon == null) {
						assertThat(after.getStatus()).isEqualTo(Status.UP);
					}
					else {
						// Another session of the shared test database may hold it too; this one is gone.
						assertThat(horizon).asInstanceOf(InstanceOfAssertFactories.LIST)
							.noneSatisfy((held) -> assertThat(held).asInstanceOf(InstanceOfAssertFactories.MAP)
								.containsEntry("pid", pid));
					}
				}
				finally {
					dropSchema();
				}
			});
	}

	/** Every claim and completion leaves a dead row version. */
	private static void leaveDeadRows(JobQueue jobs, JobStore store) {
		List<Job> batch = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			batch.add(Job.of("nobody", i));
		}
		jobs.enqueueAll(batch);
		List<Completion> done = store.claim(new ClaimRequest("test", "default", List.of("nobody"), 20, 60_000))
			.stream()
			.map((job) -> new Completion(new Lease(job.id(), job.leaseToken()), null))
			.toList();
		store.complete(done);
	}

	private void dropSchema() throws SQLException {
		try (Connection connection = DriverManager.getConnection(database.url(), database.user(), database.password())) {
			connection.createStatement().execute("DROP SCHEMA IF EXISTS " + this.schema + " CASCADE");
		}
	}

}
