package io.sqlqueue.boot.diagnostics;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;

import io.sqlqueue.JobQueue;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application whose database does not answer at start-up (nothing listens at the URL's
 * port): Spring Boot's report leads with the database and the refused connection, and says
 * what to check, not with the application's bean that needed the queue.
 */
class DatabaseUnreachableFailureAnalyzerTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class))
		.withBean("signups", Signups.class);

	@Test
	void aDatabaseThatRefusesConnectionsIsNamedWithItsCauseAndWhatToCheck() throws IOException {
		String url = "jdbc:postgresql://127.0.0.1:" + portNobodyListensOn() + "/app?password=secret";
		this.runner.withPropertyValues("spring.datasource.url=" + url, "spring.datasource.username=app")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).startsWith("sqlqueue could not connect to its database at "
						+ url.replace("secret", "******") + " to choose its SQL dialect: ")
					.contains("Connection refused")
					.doesNotContain("secret");
				assertThat(analysis.getAction()).contains("database server is running and accepts connections",
						"spring.datasource.url", "sqlqueue.enabled=false");
			});
	}

	/** A statement that fails once connected is not a database that cannot be reached. */
	@Test
	void aDatabaseThatAnswersIsNotReportedUnreachable() {
		this.runner.withPropertyValues("spring.datasource.url=jdbc:h2:mem:reachable;DB_CLOSE_DELAY=-1",
				"sqlqueue.jdbc.dialect=nosuchdialect")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(IllegalArgumentException.class);
				assertThat(analyzers().stream().map((analyzer) -> analyzer.analyze(context.getStartupFailure())))
					.as("no analysis of ours").allMatch((analysis) -> analysis == null
							|| !analysis.getDescription().contains("could not connect"));
			});
	}

	private static int portNobodyListensOn() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	/** The analysis of the analyzers registered in {@code spring.factories}, as Spring Boot reports it. */
	private static FailureAnalysis analyze(Throwable failure) {
		return analyzers().stream()
			.filter(DatabaseUnreachableFailureAnalyzer.class::isInstance)
			.map((analyzer) -> analyzer.analyze(failure))
			.findFirst()
			.orElseThrow(() -> new AssertionError("DatabaseUnreachableFailureAnalyzer is not registered"));
	}

	private static List<FailureAnalyzer> analyzers() {
		return SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, SpringFactoriesLoader.ArgumentResolver.none(),
					SpringFactoriesLoader.FailureHandler.handleMessage((message, ex) -> {
					}));
	}

	/** The application's own bean that needs the queue: what Boot's report would otherwise lead with. */
	static class Signups {

		Signups(JobQueue jobs) {
		}

	}

}
