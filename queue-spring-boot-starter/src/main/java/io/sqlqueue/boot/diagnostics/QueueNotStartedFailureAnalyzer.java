package io.sqlqueue.boot.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link QueueNotStartedException} in Spring Boot's start-up failure report:
 * which handler would never run, the missing piece, and what to add.
 */
class QueueNotStartedFailureAnalyzer extends AbstractFailureAnalyzer<QueueNotStartedException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, QueueNotStartedException cause) {
		return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
	}

}
