package io.sqlqueue.sample;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

import io.sqlqueue.BatchProgress;
import io.sqlqueue.JobContext;
import io.sqlqueue.JobHandler;

/**
 * The callback of a bundle of reports ({@code POST /reports/bundles}): runs once, after every
 * {@code report.build} job of the batch has ended, and reads how they ended from the batch.
 */
@Component
public class ReportBundler {

	private static final Logger logger = LoggerFactory.getLogger(ReportBundler.class);

	@JobHandler(value = "report.bundle", queue = "reports")
	public BundleResult bundle(BundleReports bundle, JobContext context) {
		BatchProgress batch = context.batch()
			.orElseThrow(() -> new IllegalStateException("Job " + context.jobId() + " is no batch's callback"));
		logger.info("Bundle of reports {} done: {} built, {} failed", bundle.reportIds(), batch.succeeded(),
				batch.failed() + batch.cancelled());
		return new BundleResult(batch.id(), batch.succeeded(), batch.failed() + batch.cancelled(), bundle.reportIds());
	}

}
