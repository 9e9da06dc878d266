package io.sqlqueue.dashboard;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.DuplicateJobException;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.schedule.ScheduleRecord;
import io.sqlqueue.schedule.Schedules;

/**
 * What an operator may do from the dashboard: retry a failed job, retry the failed jobs of
 * a queue or handler, cancel a queued job, and trigger, pause or resume a schedule. The
 * same verbs, with the same rules, as the {@code sqlqueue} Actuator endpoint.
 */
public class Operations {

	/** Most failed jobs one "retry failed" queues again. */
	public static final int RETRY_FAILED_LIMIT = 1000;

	private final JobQueue jobs;

	private final JobStore store;

	private final @Nullable Manager manager;

	private final @Nullable Schedules schedules;

	/**
	 * @param manager this instance's Manager (woken after a retry), or {@code null}
	 * @param schedules the recurring jobs, or {@code null} when there are none
	 */
	public Operations(JobQueue jobs, JobStore store, @Nullable Manager manager, @Nullable Schedules schedules) {
		this.jobs = jobs;
		this.store = store;
		this.manager = manager;
		this.schedules = schedules;
	}

	public ActionResult retry(long id) {
		Optional<JobRecord> job = this.jobs.find(id);
		if (job.isEmpty()) {
			return ActionResult.notDone("No job " + id, null);
		}
		try {
			if (this.jobs.retry(id)) {
				return new ActionResult(true, "Job " + id + " is queued again with a fresh set of attempts",
						JobStatus.QUEUED, List.of(id));
			}
		}
		catch (DuplicateJobException ex) {
			return ActionResult.notDone("Job " + id + " cannot be retried: " + ex.getMessage(), JobStatus.FAILED);
		}
		JobStatus now = current(id);
		return ActionResult.notDone("Job " + id + " is " + now + "; only a FAILED job can be retried", now);
	}

	public ActionResult cancel(long id) {
		Optional<JobRecord> job = this.jobs.find(id);
		if (job.isEmpty()) {
			return ActionResult.notDone("No job " + id, null);
		}
		if (this.jobs.cancel(id)) {
			JobStatus now = current(id);
			String message = (now == JobStatus.RUNNING)
					? "Job " + id + " is running: its cancel is asked for, and the instance that runs it stops it"
					: "Job " + id + " is cancelled";
			return new ActionResult(true, message, now, List.of(id));
		}
		JobStatus now = current(id);
		return ActionResult.notDone("Job " + id + " is " + now + "; only a WAITING, QUEUED or RUNNING job can be cancelled",
				now);
	}

	/** Queues again up to {@link #RETRY_FAILED_LIMIT} failed jobs of the queue and handler ({@code null}: any), oldest first. */
	public ActionResult retryFailed(@Nullable String queue, @Nullable String handler) {
		List<Long> ids = this.store.retryAllFailed(queue, handler, RETRY_FAILED_LIMIT);
		if (!ids.isEmpty() && this.manager != null) {
			this.manager.wakeUp((queue != null) ? Set.of(queue) : this.manager.totalWorkers().keySet());
		}
		String of = ((queue != null) ? " of queue " + queue : "") + ((handler != null) ? " of handler " + handler : "");
		return new ActionResult(!ids.isEmpty(), ids.isEmpty() ? "No failed jobs" + of + " to retry"
				: ids.size() + " failed job" + ((ids.size() == 1) ? "" : "s") + of + " queued again", null, ids);
	}

	/** Fires the schedule now ({@code trigger}), or pauses or resumes it. */
	public ActionResult schedule(String name, String action) {
		Optional<ScheduleRecord> schedule = (this.schedules != null) ? this.schedules.find(name) : Optional.empty();
		if (this.schedules == null || schedule.isEmpty()) {
			return ActionResult.notDone("No schedule named '" + name + "'", null);
		}
		return switch (action) {
			case "trigger" -> {
				long jobId;
				try {
					jobId = this.schedules.trigger(name);
				}
				catch (IllegalStateException ex) {
					// Its jobs' settings are not stored and this instance lacks the handler, or it
					// kept changing under the trigger: nothing was enqueued.
					yield ActionResult.notDone(String.valueOf(ex.getMessage()), null);
				}
				if (this.manager != null) {
					this.manager.wakeUp(this.manager.totalWorkers().keySet());
				}
				yield new ActionResult(true, "Schedule '" + name + "' fired job " + jobId, JobStatus.QUEUED,
						List.of(jobId));
			}
			case "pause" -> (!schedule.get().paused() && this.schedules.pause(name))
					? new ActionResult(true, "Schedule '" + name + "' is paused", null, List.of())
					: ActionResult.notDone("Schedule '" + name + "' was paused already", null);
			case "resume" -> (schedule.get().paused() && this.schedules.resume(name))
					? new ActionResult(true, "Schedule '" + name + "' fires again from its next tick", null, List.of())
					: ActionResult.notDone("Schedule '" + name + "' was not paused", null);
			default -> throw new IllegalArgumentException(
					"Unknown schedule action '" + action + "'; use trigger, pause or resume");
		};
	}

	private @Nullable JobStatus current(long id) {
		return this.jobs.find(id).map(JobRecord::status).orElse(null);
	}

}
