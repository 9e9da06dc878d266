package io.sqlqueue.sample;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

import io.sqlqueue.JobContext;
import io.sqlqueue.JobHandler;
import io.sqlqueue.NonRetryableException;
import io.sqlqueue.sample.Reports.Report;
import io.sqlqueue.sample.Reports.ReportLine;

/**
 * Builds reports in the background, in the {@code reports} queue, with at most 3 attempts.
 * <p>
 * To show retries and the dead-letter state, each report says how many of its runs fail
 * ({@code failTimes}, a "flaky report source"): runs are counted in the report's row, so an
 * operator retry of a {@code FAILED} job continues where the count left off. A report of
 * an unknown kind can never be built: that throws {@link NonRetryableException}, which fails
 * the job at once without the remaining attempts.
 */
@Component
public class ReportBuilder {

	/** The report kinds this application can build. */
	public static final List<String> KINDS = List.of("signups", "mails");

	private static final Logger logger = LoggerFactory.getLogger(ReportBuilder.class);

	private final Reports reports;

	public ReportBuilder(Reports reports) {
		this.reports = reports;
	}

	@JobHandler(value = "report.build", queue = "reports", maxAttempts = 3)
	public ReportResult build(BuildReport request, JobContext context) {
		long id = request.reportId();
		Report report = this.reports.find(id)
			.orElseThrow(() -> new NonRetryableException("Report " + id + " does not exist"));
		if (!KINDS.contains(report.kind())) {
			String error = "Unknown report kind '" + report.kind() + "'; known kinds: " + KINDS;
			this.reports.failed(id, error);
			throw new NonRetryableException(error);
		}
		int run = this.reports.startRun(id);
		if (run <= report.failTimes()) {
			String error = "The report source is unavailable (simulated: run " + run + " of report " + id
					+ " fails; it fails " + report.failTimes() + " time(s))";
			if (context.attempt() >= context.maxAttempts()) {
				this.reports.failed(id, error);
			}
			logger.info("Report {} fails on attempt {} of {}", id, context.attempt(), context.maxAttempts());
			throw new IllegalStateException(error);
		}
		List<ReportLine> lines = report.kind().equals("signups") ? this.reports.signupsPerDay()
				: this.reports.mailsPerKind();
		StringBuilder summary = new StringBuilder();
		lines.forEach((line) -> summary.append(line.key()).append(": ").append(line.count()).append('\n'));
		this.reports.ready(id, summary.toString());
		logger.info("Report {} ({}) built on attempt {}", id, report.kind(), context.attempt());
		return new ReportResult(id, report.kind(), lines, run);
	}

}
