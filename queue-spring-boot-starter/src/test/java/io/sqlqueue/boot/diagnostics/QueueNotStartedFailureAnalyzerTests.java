package io.sqlqueue.boot.diagnostics;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import io.sqlqueue.JobHandler;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobStatus;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.boot.autoconfigure.SqlQueueNotStartedAutoConfiguration;
import io.sqlqueue.internal.manager.Manager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Quick start's set-up: the starter, a JDBC driver (H2 here) and
 * {@code spring.datasource.url}. It runs jobs; and where the queue cannot start, an
 * application with handlers does not start either, and says why.
 */
class QueueNotStartedFailureAnalyzerTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class, SqlQueueNotStartedAutoConfiguration.class))
		.withPropertyValues("sqlqueue.manager.poll-interval=50ms", "sqlqueue.manager.shutdown-timeout=1s");

	/** An application that makes no DataSource (as one without a pool or with Boot's excluded). */
	private final ApplicationContextRunner withoutDataSource = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SqlQueueAutoConfiguration.class,
				SqlQueueNotStartedAutoConfiguration.class));

	private final String url = "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

	@Test
	void theStartersDependenciesAndAUrlRunJobs() {
		// This module's tests declare no connection pool: HikariCP must come with the starter.
		this.runner.withPropertyValues(this.url).withBean("mailer", Mailer.class).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(Manager.class);
			assertThat(context.getBean(DataSource.class)).isInstanceOf(HikariDataSource.class);
			JobQueue jobs = context.getBean(JobQueue.class);
			long id = jobs.enqueue("mail.welcome", null);
			assertThat(jobs.await(id, Duration.ofSeconds(20)).status()).isEqualTo(JobStatus.SUCCEEDED);
		});
	}

	@Test
	void handlersWithoutADataSourceFailTheStartNamingIt() {
		this.withoutDataSource.withBean("mailer", Mailer.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).startsWith("@JobHandler method Mailer#sendWelcome (bean 'mailer') "
					+ "would never run: sqlqueue did not start because the application has no DataSource bean: "
					+ "spring.datasource.url is not set.");
			assertThat(analysis.getAction()).contains("Set spring.datasource.url")
				.contains("sqlqueue.enabled=false");
		});
	}

	@Test
	void handlersWithAUrlButNoConnectionPoolFailTheStartNamingThePool() {
		this.runner.withPropertyValues(this.url)
			.withClassLoader(new FilteredClassLoader(HikariDataSource.class))
			.withBean("mailer", Mailer.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("no DataSource bean: Spring Boot makes one from "
						+ "spring.datasource.url only with a connection pool on the class path");
				assertThat(analysis.getAction()).contains("com.zaxxer:HikariCP");
			});
	}

	@Test
	void handlersWithTwoDataSourcesAndNoPrimaryFailTheStartNamingThem() {
		this.runner.withBean("orders", DataSource.class, SimpleDriverDataSource::new)
			.withBean("audit", DataSource.class, SimpleDriverDataSource::new)
			.withBean("mailer", Mailer.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(analyze(context.getStartupFailure()).getDescription())
					.contains("2 DataSource beans [orders, audit] and none is primary");
			});
	}

	@Test
	void withoutHandlersOrWhenSwitchedOffTheApplicationStartsWithoutTheQueue() {
		this.withoutDataSource.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(JobQueue.class));
		this.withoutDataSource.withPropertyValues("sqlqueue.enabled=false")
			.withBean("mailer", Mailer.class)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(JobQueue.class));
	}

	/** The analysis of the analyzers registered in {@code spring.factories}, as Spring Boot reports it. */
	private static FailureAnalysis analyze(Throwable failure) {
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, SpringFactoriesLoader.ArgumentResolver.none(),
					SpringFactoriesLoader.FailureHandler.handleMessage((message, ex) -> {
					}));
		return analyzers.stream()
			.filter(QueueNotStartedFailureAnalyzer.class::isInstance)
			.map((analyzer) -> analyzer.analyze(failure))
			.findFirst()
			.orElseThrow(() -> new AssertionError("QueueNotStartedFailureAnalyzer is not registered"));
	}

	static class Mailer {

		@JobHandler("mail.welcome")
		void sendWelcome() {
		}

	}

}
