package io.sqlqueue.sample;

import java.net.URI;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import io.sqlqueue.JobQueue;
import io.sqlqueue.sample.Reports.Report;

/**
 * {@code POST /reports} requests a report, built in the background by {@link ReportBuilder};
 * {@code GET /reports/{id}} shows it.
 */
@RestController
public class ReportController {

	private final Reports reports;

	private final JobQueue jobs;

	public ReportController(Reports reports, JobQueue jobs) {
		this.reports = reports;
		this.jobs = jobs;
	}

	/**
	 * Saves the report request and enqueues its job in one transaction; 202 Accepted with
	 * the ids of both. The kind is checked by the worker, which knows what it can build.
	 */
	@PostMapping("/reports")
	@Transactional
	public ResponseEntity<ReportRequested> request(@RequestBody ReportRequest request) {
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
		return ResponseEntity.accepted()
			.location(URI.create("/reports/" + reportId))
			.body(new ReportRequested(reportId, jobId));
	}

	@GetMapping("/reports/{id}")
	public Report report(@PathVariable long id) {
		return this.reports.find(id)
			.orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "No report " + id));
	}

	/**
	 * The body of {@code POST /reports}.
	 *
	 * @param kind {@code signups} or {@code mails} (anything else fails the job without retries)
	 * @param failTimes how many runs of the job fail before one succeeds (default 0)
	 */
	public record ReportRequest(String kind, Integer failTimes) {

	}

	public record ReportRequested(long reportId, long jobId) {

	}

}
