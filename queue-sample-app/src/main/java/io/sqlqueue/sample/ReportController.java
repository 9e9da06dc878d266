package io.sqlqueue.sample;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import io.sqlqueue.AwaitTimeoutException;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobResult;
import io.sqlqueue.JobStatus;
import io.sqlqueue.sample.Reports.Report;

/**
 * {@code POST /reports} requests a report, built in the background by {@link ReportBuilder};
 * with {@code ?waitSeconds=N} it also waits up to N seconds for the build and answers its
 * outcome ({@link JobQueue#await}). {@code GET /reports/{id}} shows a report.
 */
@RestController
public class ReportController {

	/** The longest a request may wait for its report. */
	static final int MAX_WAIT_SECONDS = 30;

	private final Reports reports;

	private final ReportRequests requests;

	private final JobQueue jobs;

	public ReportController(Reports reports, ReportRequests requests, JobQueue jobs) {
		this.reports = reports;
		this.requests = requests;
		this.jobs = jobs;
	}

	/**
	 * Saves the report request and enqueues its job in one transaction: 202 Accepted with the
	 * ids of both. With {@code waitSeconds}, then awaits the job, after that transaction
	 * committed: 200 with how the job ended and the report it built, or 202 as without
	 * waiting when the job has not finished in time.
	 */
	@PostMapping("/reports")
	public ResponseEntity<?> request(@RequestBody ReportRequest request,
			@RequestParam(required = false) @Nullable Integer waitSeconds) throws InterruptedException {
		if (waitSeconds != null && (waitSeconds < 1 || waitSeconds > MAX_WAIT_SECONDS)) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
					"waitSeconds must be 1 to " + MAX_WAIT_SECONDS);
		}
		ReportRequested requested = this.requests.request(request);
		URI location = URI.create("/reports/" + requested.reportId());
		if (waitSeconds != null) {
			try {
				JobResult result = this.jobs.await(requested.jobId(), Duration.ofSeconds(waitSeconds));
				return ResponseEntity.ok()
					.location(location)
					.body(new ReportBuilt(requested.reportId(), requested.jobId(), result.status(),
							result.result(ReportResult.class), result.error()));
			}
			catch (AwaitTimeoutException ex) {
				// Not built yet: answer as without waiting; the job goes on.
			}
		}
		return ResponseEntity.accepted().location(location).body(requested);
	}

	/**
	 * Saves a report request per kind and enqueues their jobs as one batch with a callback
	 * ({@code report.bundle}), which runs once they have all ended: 202 Accepted with the ids.
	 */
	@PostMapping("/reports/bundles")
	public ResponseEntity<BundleRequested> bundle(@RequestBody BundleRequest request) {
		List<String> kinds = (request.kinds() != null) ? request.kinds() : List.of();
		return ResponseEntity.accepted().body(this.requests.bundle(kinds));
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

	/** The body of {@code POST /reports/bundles}: the kinds of its reports. */
	public record BundleRequest(@Nullable List<String> kinds) {

	}

	/**
	 * A bundle of reports enqueued.
	 * @param jobIds the {@code report.build} jobs, one per report
	 * @param callbackJobId the {@code report.bundle} job, which runs once they have all ended
	 */
	public record BundleRequested(long batchId, List<Long> reportIds, List<Long> jobIds, @Nullable Long callbackJobId) {

	}

	/**
	 * How an awaited report job ended.
	 * @param report what the job built, when it succeeded
	 * @param error why it did not, when it failed or was cancelled
	 */
	public record ReportBuilt(long reportId, long jobId, JobStatus status, @Nullable ReportResult report,
			@Nullable String error) {

	}

}
