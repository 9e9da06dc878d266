package io.sqlqueue.sample;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonRawValue;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;

/**
 * Look at a job as stored, retry a {@code FAILED} one, cancel a queued or running one. (The
 * starter's Actuator endpoint offers the same to operators; this shows the
 * {@link JobQueue} API an application would use.) Retry and cancel run in a transaction, so
 * they answer with the job as they left it: workers hear of a retried job only when it commits.
 */
@RestController
@RequestMapping("/jobs/{id}")
public class JobController {

	private final JobQueue jobs;

	public JobController(JobQueue jobs) {
		this.jobs = jobs;
	}

	@GetMapping
	public JobView job(@PathVariable long id) {
		return JobView.of(find(id));
	}

	/** Queues a {@code FAILED} job again with a fresh set of attempts; 409 when it is not failed. */
	@PostMapping("/retry")
	@Transactional
	public JobView retry(@PathVariable long id) {
		JobRecord job = find(id);
		if (!this.jobs.retry(id)) {
			throw new ResponseStatusException(HttpStatus.CONFLICT,
					"Job " + id + " is " + job.status() + "; only a FAILED job can be retried");
		}
		return JobView.of(find(id));
	}

	/**
	 * Cancels a {@code QUEUED} job, or asks the instance running a {@code RUNNING} one to stop
	 * it (it then ends {@code CANCELLED}); 409 when it is neither (any more).
	 */
	@PostMapping("/cancel")
	@Transactional
	public JobView cancel(@PathVariable long id) {
		JobRecord job = find(id);
		if (!this.jobs.cancel(id)) {
			throw new ResponseStatusException(HttpStatus.CONFLICT,
					"Job " + id + " is " + job.status() + "; only a WAITING, QUEUED or RUNNING job can be cancelled");
		}
		return JobView.of(find(id));
	}

	private JobRecord find(long id) {
		return this.jobs.find(id).orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "No job " + id));
	}

	/**
	 * A job as stored, for JSON: payload and result as the JSON they are, lease details
	 * left out.
	 */
	public record JobView(long id, String queue, String handler, JobStatus status, int attempts, int maxAttempts,
			int priority, @JsonRawValue String payload, @JsonRawValue @Nullable String result,
			@Nullable String lastError, Instant runAt, Instant createdAt, Instant updatedAt,
			@Nullable Instant startedAt, @Nullable Instant finishedAt) {

		static JobView of(JobRecord job) {
			return new JobView(job.id(), job.queue(), job.handler(), job.status(), job.attempts(), job.maxAttempts(),
					job.priority(), job.payload(), job.result(), job.lastError(), job.runAt(), job.createdAt(),
					job.updatedAt(), job.startedAt(), job.finishedAt());
		}

	}

}
