package io.sqlqueue.boot.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link DatabaseUnreachableException} in Spring Boot's start-up failure report,
 * as Boot's own analyzers explain a data source they cannot configure: which database did not
 * answer and why, and what to check. Without it the report opens with the application's own
 * bean that needed the queue, and the cause is the last of a long chain.
 */
class DatabaseUnreachableFailureAnalyzer extends AbstractFailureAnalyzer<DatabaseUnreachableException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, DatabaseUnreachableException cause) {
		String where = (cause.getUrl() != null) ? " at " + cause.getUrl() : "";
		String action = "Check that the database server is running and accepts connections" + where
				+ " from this host (its host, port and any firewall between), and that spring.datasource.url, "
				+ "spring.datasource.username and spring.datasource.password name it as it expects. The queue "
				+ "needs its database at start-up: it reads its metadata, and migrates its tables "
				+ "(sqlqueue.jdbc.migrate). To start this application without the queue, set sqlqueue.enabled=false.";
		return new FailureAnalysis(cause.getMessage(), action, cause);
	}

}
