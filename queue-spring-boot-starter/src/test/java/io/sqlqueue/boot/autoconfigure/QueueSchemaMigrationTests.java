package io.sqlqueue.boot.autoconfigure;

import java.util.UUID;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobQueue;
import io.sqlqueue.boot.schema.QueueSchemaInitializer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue's own migration beside the application's Flyway migrations
 * ({@code db/migration/V1__app.sql} in the test resources).
 */
class QueueSchemaMigrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, FlywayAutoConfiguration.class,
				JacksonAutoConfiguration.class, SqlQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"sqlqueue.manager.enabled=false");

	@Test
	void leavesTheApplicationsFlywayInPlace() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(Flyway.class).hasSingleBean(QueueSchemaInitializer.class);
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM app_thing", Integer.class)).isZero();
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM queue_job", Integer.class)).isZero();
			assertThat(jdbc.queryForList("SELECT \"script\" FROM \"flyway_schema_history\" WHERE \"type\" = 'SQL'", String.class))
				.containsExactly("V1__app.sql");
			assertThat(jdbc.queryForList(
					"SELECT \"script\" FROM \"sqlqueue_schema_history\" WHERE \"type\" = 'SQL' ORDER BY \"installed_rank\"",
					String.class))
				.containsExactly("V1__create_queue_job.sql", "V2__one_running_job_per_group.sql",
						"V3__create_queue_schedule.sql", "V4__deadlines_cancel_requests_crashes.sql",
						"V5__job_headers.sql", "V6__flow_control.sql", "V7__workflows.sql",
						"V8__schedule_job_settings.sql", "V9__instances_and_paused_queues.sql", "V10__attempt_history.sql",
						"V11__audit_log.sql", "V12__job_tags_and_meta.sql", "V13__shared_counts.sql", "V14__fair_turns.sql",
						"V15__durable_steps.sql", "V16__lease_extensions.sql",
						"V17__schedule_declared_until.sql", "V18__limit_declared_until.sql");
		});
	}

	@Test
	void createsTheJobQueueAfterBothMigrations() {
		this.runner.run((context) -> {
			String[] dependsOn = context.getBeanFactory().getBeanDefinition("jobQueue").getDependsOn();
			assertThat(dependsOn).contains("sqlqueueSchemaInitializer", "flywayInitializer");
			String[] initializerDependsOn = context.getBeanFactory()
				.getBeanDefinition("sqlqueueSchemaInitializer")
				.getDependsOn();
			assertThat(initializerDependsOn).contains("flywayInitializer");
			context.getBean(JobQueue.class).enqueue("ping", null);
		});
	}

	@Test
	void runsNoMigrationOfItsOwnWhenMigrateIsOff() {
		this.runner.withPropertyValues("sqlqueue.jdbc.migrate=false").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(Flyway.class).doesNotHaveBean(QueueSchemaInitializer.class);
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM app_thing", Integer.class)).isZero();
			assertThat(jdbc.queryForObject(
					"SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE LOWER(TABLE_NAME) IN ('queue_job', 'sqlqueue_schema_history')",
					Integer.class))
				.isZero();
		});
	}

}
