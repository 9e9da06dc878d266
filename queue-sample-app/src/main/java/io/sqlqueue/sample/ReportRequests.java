package io.sqlqueue.sample;

import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.server.ResponseStatusException;

import io.sqlqueue.JobQueue;
import io.sqlqueue.sample.ReportController.ReportRequest;
import io.sqlqueue.sample.ReportController.ReportRequested;

/**
 * Saves a report request and enqueues its job in one transaction: the job exists only if the
 * request is saved. Awaiting the job belongs outside this transaction (see
 * {@link ReportController}): inside it, no worker could see the job yet.
 */
@Service
public class ReportRequests {

	private final Reports reports;

	private final JobQueue jobs;

	public ReportRequests(Reports reports, JobQueue jobs) {
		this.reports = reports;
		this.jobs = jobs;
	}

	/** The kind is checked by the worker, which knows what it can build. */
	@Transactional
	public ReportRequested request(ReportRequest request) {
		String kind = (request.kind() != null) ? request.kind().strip() : "";
		int failTimes = (request.failTimes() != null) ? request.failTimes() : 0;
		if (kind.isEmpty() || kind.length() > 64) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
					"kind must be 1 to 64 characters, one of " + ReportBuilder.KINDS);
		}
		if (failTimes < 0 || failTimes > 100) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "failTimes must be 0 to 100");
		}
		long reportId = this.reports.insert(kind, failTimes);
		long jobId = this.jobs.enqueue("report.build", new BuildReport(reportId));
		return new ReportRequested(reportId, jobId);
	}

}
