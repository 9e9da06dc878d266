package io.sqlqueue.sample;

import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.server.ResponseStatusException;

import java.util.ArrayList;
import java.util.List;

import io.sqlqueue.Batch;
import io.sqlqueue.BatchIds;
import io.sqlqueue.Job;
import io.sqlqueue.JobQueue;
import io.sqlqueue.sample.ReportController.BundleRequested;
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
		long reportId = insert(request);
		long jobId = this.jobs.enqueue("report.build", new BuildReport(reportId));
		return new ReportRequested(reportId, jobId);
	}

	/**
	 * Saves a report request per kind and enqueues their jobs as one batch, whose callback
	 * ({@link ReportBundler}) runs once they have all ended, in one transaction.
	 */
	@Transactional
	public BundleRequested bundle(List<String> kinds) {
		if (kinds.isEmpty() || kinds.size() > 10) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "kinds must name 1 to 10 reports");
		}
		List<Long> reportIds = new ArrayList<>();
		List<Job> builds = new ArrayList<>();
		for (String kind : kinds) {
			long reportId = insert(new ReportRequest(kind, 0));
			reportIds.add(reportId);
			builds.add(Job.of("report.build", new BuildReport(reportId)));
		}
		BatchIds batch = this.jobs.enqueue(Batch.of(builds).callback(Job.of("report.bundle", new BundleReports(reportIds))));
		return new BundleRequested(batch.batchId(), reportIds, batch.jobIds(), batch.callbackId());
	}

	private long insert(ReportRequest request) {
		String kind = (request.kind() != null) ? request.kind().strip() : "";
		int failTimes = (request.failTimes() != null) ? request.failTimes() : 0;
		if (kind.isEmpty() || kind.length() > 64) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
					"kind must be 1 to 64 characters, one of " + ReportBuilder.KINDS);
		}
		if (failTimes < 0 || failTimes > 100) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "failTimes must be 0 to 100");
		}
		return this.reports.insert(kind, failTimes);
	}

}
