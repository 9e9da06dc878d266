package io.sqlqueue.sample;

import java.time.Instant;
import java.util.List;

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
import io.sqlqueue.JobSignal;
import io.sqlqueue.JobStatus;
import io.sqlqueue.JobStep;
import io.sqlqueue.admin.AdminResult;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.Refusal;

/**
 * Look at a job as stored (with its durable steps and the signals sent to it, which say why a
 * parked job waits), retry a {@code FAILED} one, cancel a queued or running one. (The
 * starter's Actuator endpoint and the dashboard offer the same to operators; like them, this
 * calls the {@link QueueAdmin} bean, and answers its refusals' messages.) Retry and cancel run
 * in a transaction, so they answer with the job as they left it: workers hear of a retried job
 * only when it commits.
 */
@RestController
@RequestMapping("/jobs/{id}")
public class JobController {

	private final JobQueue jobs;

	private final QueueAdmin admin;

	public JobController(JobQueue jobs, QueueAdmin admin) {
		this.jobs = jobs;
		this.admin = admin;
	}

	@GetMapping
	public JobView job(@PathVariable long id) {
		return view(find(id));
	}

	/** Queues a {@code FAILED} job again with a fresh set of attempts; 409 when it is not failed. */
	@PostMapping("/retry")
	@Transactional
	public JobView retry(@PathVariable long id) {
		return answer(id, this.admin.retry(id));
	}

	/**
	 * Cancels a {@code QUEUED} job, or asks the instance running a {@code RUNNING} one to stop
	 * it (it then ends {@code CANCELLED}); 409 when it is neither (any more).
	 */
	@PostMapping("/cancel")
	@Transactional
	public JobView cancel(@PathVariable long id) {
		return answer(id, this.admin.cancel(id));
	}

	/** The job as the action left it; 404 when there is none, 409 with the reason when it was refused. */
	private JobView answer(long id, AdminResult result) {
		if (!result.done()) {
			throw new ResponseStatusException(
					(result.refusal() == Refusal.NO_SUCH_JOB) ? HttpStatus.NOT_FOUND : HttpStatus.CONFLICT,
					result.message());
		}
		return view(find(id));
	}

	private JobView view(JobRecord job) {
		return JobView.of(job, this.jobs.steps(job.id()), this.jobs.signals(job.id()));
	}

	private JobRecord find(long id) {
		return this.jobs.find(id).orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "No job " + id));
	}

	/**
	 * A job as stored, for JSON: payload and result as the JSON they are, lease details
	 * left out; its records ({@link JobQueue#steps}) and signals ({@link JobQueue#signals}),
	 * empty for a job without durable steps.
	 */
	public record JobView(long id, String queue, String handler, JobStatus status, int attempts, int maxAttempts,
			int priority, @JsonRawValue String payload, @JsonRawValue @Nullable String result,
			@Nullable String lastError, Instant runAt, Instant createdAt, Instant updatedAt,
			@Nullable Instant startedAt, @Nullable Instant finishedAt, List<StepView> steps,
			List<SignalView> signals) {

		static JobView of(JobRecord job, List<JobStep> steps, List<JobSignal> signals) {
			return new JobView(job.id(), job.queue(), job.handler(), job.status(), job.attempts(), job.maxAttempts(),
					job.priority(), job.payload(), job.result(), job.lastError(), job.runAt(), job.createdAt(),
					job.updatedAt(), job.startedAt(), job.finishedAt(), steps.stream().map(StepView::of).toList(),
					signals.stream().map(SignalView::of).toList());
		}

	}

	/** A record of a job's run: a step with its result as the JSON it is, a sleep, or a wait for a signal. */
	public record StepView(JobStep.Kind kind, String name, @JsonRawValue @Nullable String result,
			@Nullable Instant wakeAt, boolean timedOut, Instant recordedAt) {

		static StepView of(JobStep step) {
			return new StepView(step.kind(), step.name(), step.result(), step.wakeAt(), step.timedOut(),
					step.recordedAt());
		}

	}

	/** A signal sent to a job, its payload as the JSON it is. */
	public record SignalView(String name, @JsonRawValue String payload, Instant sentAt) {

		static SignalView of(JobSignal signal) {
			return new SignalView(signal.name(), signal.payload(), signal.sentAt());
		}

	}

}
