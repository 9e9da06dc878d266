package io.sqlqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.BatchProgress;
import io.sqlqueue.JobLinks;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobSignal;
import io.sqlqueue.JobStatus;
import io.sqlqueue.JobStep;
import io.sqlqueue.admin.JobAttempt;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.dashboard.JobDetail.TimelineEvent;

/**
 * Reads one job for the detail page and builds its timeline: enqueued, due, each attempt's
 * start, end, worker and error, and how it finished. Ended attempts come from the database
 * ({@link QueueAdmin#attempts}), whichever instance ran them; the attempt running now is on
 * the job's row. Attempts with no row (run by an instance older than the attempt history, or
 * while it was off) are counted as such. An operator's retry starts the row's count of
 * attempts again, so the attempts after it are named by the retry they follow
 * ("Operator retry 1, attempt 1"), never as a second "Attempt 1". A run that parked the job
 * (a sleep or a wait for a signal: docs/durable-steps.md) spends no attempt and leaves no
 * attempt row; its record of the sleep or wait tells of it, so that it reads as parked, not
 * as an operator's retry.
 */
public class JobDetails {

	private final JobQueue jobs;

	private final QueueAdmin admin;

	private final boolean showPayload;

	/** @param showPayload whether payloads are shown */
	public JobDetails(JobQueue jobs, QueueAdmin admin, boolean showPayload) {
		this.jobs = jobs;
		this.admin = admin;
		this.showPayload = showPayload;
	}

	public Optional<JobDetail> find(long id) {
		return this.jobs.find(id).map(this::detail);
	}

	private JobDetail detail(JobRecord job) {
		List<JobStep> steps = this.jobs.steps(job.id());
		List<JobSignal> signals = this.jobs.signals(job.id());
		JobStep park = parkedRun(job, steps);
		return new JobDetail(job.id(), job.queue(), job.handler(), job.status(), job.attempts(), job.maxAttempts(),
				job.priority(), job.uniqueKey(), job.groupKey(), job.runAt(), job.createdAt(), job.updatedAt(),
				job.startedAt(), job.finishedAt(), job.scheduledFor(), job.leaseOwner(), job.leaseExpiresAt(),
				job.lastError(), job.result(), this.showPayload ? job.payload() : null, this.showPayload,
				timeline(job, this.admin.attempts(job.id()).orElse(List.of()), park,
						park != null && signalled(park, signals)),
				actions(job.status(), !steps.isEmpty()), workflow(job.id()), handlerNotice(job),
				steps.stream().map(JobDetail.Step::of).toList(),
				signals.stream()
					.map((signal) -> new JobDetail.Signal(signal.name(), this.showPayload ? signal.payload() : null,
							signal.sentAt()))
					.toList(),
				parked(job, steps, signals, Instant.now()), (park != null) ? job.attempts() + 1 : job.attempts(),
				(job.status() == JobStatus.RUNNING) ? job.leaseOwner() : null);
	}

	/**
	 * What a parked job waits for: it is {@code QUEUED} and its latest sleep or wait for a
	 * signal ends later, a wait only while its signal has not come. {@code null} otherwise; a
	 * snooze too, as it leaves no record.
	 */
	static JobDetail.@Nullable Parked parked(JobRecord job, List<JobStep> steps, List<JobSignal> signals,
			Instant now) {
		JobStep park = lastPark(steps);
		if (job.status() != JobStatus.QUEUED || park == null || park.wakeAt() == null || !park.wakeAt().isAfter(now)
				|| park.timedOut() || signalled(park, signals)) {
			return null;
		}
		return new JobDetail.Parked(park.kind(), park.name(), park.wakeAt());
	}

	/**
	 * The sleep or wait the latest run of a {@code QUEUED} job parked on: its last one,
	 * recorded since the row's start. {@code null} when that run did not park on a record.
	 */
	static @Nullable JobStep parkedRun(JobRecord job, List<JobStep> steps) {
		JobStep park = lastPark(steps);
		boolean sinceStart = park != null && job.startedAt() != null && !park.recordedAt().isBefore(job.startedAt());
		return (job.status() == JobStatus.QUEUED && sinceStart) ? park : null;
	}

	private static @Nullable JobStep lastPark(List<JobStep> steps) {
		JobStep park = null;
		for (JobStep step : steps) {
			park = (step.kind() == JobStep.Kind.SLEEP || step.kind() == JobStep.Kind.SIGNAL) ? step : park;
		}
		return park;
	}

	/** Whether the signal a wait is for has come (a sleep's never has). */
	private static boolean signalled(JobStep park, List<JobSignal> signals) {
		return park.kind() == JobStep.Kind.SIGNAL
				&& signals.stream().anyMatch((signal) -> signal.name().equals(park.name()));
	}

	/** What a run parked on, in words that end with "until", the wake time being the page's to write. */
	private static String waitText(JobStep park) {
		return (park.kind() == JobStep.Kind.SLEEP) ? "sleeping until"
				: "waiting for signal '" + park.name() + "' until";
	}

	/** The notice of a job yet to run whose handler this instance lacks; none for others. */
	private @Nullable String handlerNotice(JobRecord job) {
		boolean yetToRun = job.status() == JobStatus.QUEUED || job.status() == JobStatus.WAITING;
		return yetToRun ? this.jobs.unknownHandlerNotice(job.handler()).orElse(null) : null;
	}

	private @Nullable WorkflowView workflow(long id) {
		return this.jobs.links(id)
			.filter(JobLinks::inWorkflow)
			.flatMap((links) -> this.jobs.graph(id).map((graph) -> WorkflowView.of(links, graph)))
			.orElse(null);
	}

	/** The batch of this id with its counts now. */
	public Optional<BatchProgress> batch(long id) {
		return this.jobs.batch(id);
	}

	/**
	 * The actions a job's state allows; the same rules as {@link JobQueue#retry} and
	 * {@link JobQueue#cancel}, and for a failed job with records, {@link QueueAdmin#retryFrom}
	 * one of them (the way out of a replay mismatch).
	 */
	static List<String> actions(JobStatus status, boolean hasRecords) {
		return switch (status) {
			case FAILED -> hasRecords ? List.of("retry", "retry-from") : List.of("retry");
			case WAITING, QUEUED, RUNNING -> List.of("cancel");
			default -> List.of();
		};
	}

	/**
	 * @param park the sleep or wait the latest run parked on ({@link #parkedRun}), or {@code null}
	 * @param signalled whether the signal that wait is for has come
	 */
	static List<TimelineEvent> timeline(JobRecord job, List<JobAttempt> recorded, @Nullable JobStep park,
			boolean signalled) {
		List<TimelineEvent> events = new ArrayList<>();
		// An operator's retry starts the row's attempt count again from 1: the attempts after
		// it are named by the retry, so that two attempts never share a name.
		int retries = 0;
		int previous = 0;
		Set<Integer> thisRound = new HashSet<>();
		for (JobAttempt attempt : recorded) {
			if (attempt.attempt() <= previous) {
				retries++;
				thisRound.clear();
				events.add(requeued(attempt.startedAt(), retries));
			}
			previous = attempt.attempt();
			thisRound.add(attempt.attempt());
			String name = attemptName(attempt.attempt(), retries);
			if (attempt.startedAt() != null) {
				events.add(new TimelineEvent(attempt.startedAt(), "started", name + " started", attempt.worker(), null));
			}
			events.add(new TimelineEvent(attempt.endedAt(), "ended", name + " ended: " + outcomeText(attempt),
					attempt.worker(), attempt.error()));
		}
		JobAttempt last = recorded.isEmpty() ? null : recorded.get(recorded.size() - 1);
		boolean rowStarted = job.startedAt() != null && job.attempts() > 0;
		boolean latestRecorded = last != null && rowStarted && last.attempt() == job.attempts()
				&& last.startedAt() != null && sameMoment(last.startedAt(), job.startedAt());
		if (last != null && !latestRecorded) {
			Instant retriedBy = (park != null) ? retriedBeforePark(job, last) : retriedSince(job, last, rowStarted);
			if (retriedBy != null) {
				retries++;
				thisRound.clear();
				events.add(requeued(retriedBy, retries));
			}
		}
		if (park != null) {
			// The run that parked: its attempt is not counted on the row, nor has a row of its own.
			String name = attemptName(job.attempts() + 1, retries);
			events.add(new TimelineEvent(job.startedAt(), "started", name + " started", job.leaseOwner(), null));
			events.add(new TimelineEvent(park.recordedAt(), "parked", name + " parked: " + waitText(park), null,
					null, park.wakeAt()));
		}
		else if (!latestRecorded && rowStarted) {
			// The attempt running now, or one that ended with no row of its own.
			thisRound.add(job.attempts());
			String name = attemptName(job.attempts(), retries);
			events.add(new TimelineEvent(job.startedAt(), "started",
					name + ((job.status() == JobStatus.RUNNING) ? " started, running now" : " started"),
					job.leaseOwner(), null));
		}
		if (job.status() == JobStatus.QUEUED && job.runAt().isAfter(job.createdAt())) {
			events.add(new TimelineEvent(job.runAt(), "due", dueText(job, park, signalled), null, null));
		}
		if (job.finishedAt() != null) {
			events.add(new TimelineEvent(job.finishedAt(), "finished", finishedText(job, retries), null, null));
		}
		events.sort(Comparator.comparing(TimelineEvent::at, Comparator.nullsLast(Comparator.<Instant>naturalOrder()))
			.thenComparing((event) -> order(event.event())));
		List<TimelineEvent> timeline = new ArrayList<>();
		timeline.add(new TimelineEvent(job.createdAt(), "enqueued", (job.scheduledFor() != null)
				? "Enqueued by a schedule for its tick at" : "Enqueued", null, null, job.scheduledFor()));
		int unrecorded = 0;
		for (int number = 1; number <= job.attempts(); number++) {
			unrecorded += thisRound.contains(number) ? 0 : 1;
		}
		if (unrecorded > 0) {
			timeline.add(new TimelineEvent(null, "unrecorded", ((unrecorded == 1) ? "1 attempt" : unrecorded
					+ " attempts") + " with no record (run by an instance older than the attempt history, or while it "
					+ "was off)", null, null));
		}
		timeline.addAll(events);
		return timeline;
	}

	private static String outcomeText(JobAttempt attempt) {
		return switch (attempt.outcome()) {
			case JobAttempt.LEASE_EXPIRED -> "its worker was lost (lease expired), "
					+ ((attempt.status() == JobStatus.QUEUED) ? "queued again" : attempt.status().name().toLowerCase(
							Locale.ROOT));
			default -> attempt.outcome();
		};
	}

	/**
	 * When, at the latest, an operator queued the job again after the last recorded attempt;
	 * {@code null} when nothing says so. The row shows it by a count of attempts started again
	 * (none yet, or no more than that attempt's number) or by an attempt started after that one
	 * failed the job for good.
	 */
	private static @Nullable Instant retriedSince(JobRecord job, JobAttempt last, boolean rowStarted) {
		if (!rowStarted) {
			return (job.attempts() == 0 && job.updatedAt().isAfter(last.endedAt())) ? job.updatedAt() : null;
		}
		boolean later = last.startedAt() == null || job.startedAt().isAfter(last.startedAt());
		return (later && (job.attempts() <= last.attempt() || last.status() == JobStatus.FAILED))
				? job.startedAt() : null;
	}

	/**
	 * When, at the latest, an operator queued the job again before the run that parked it;
	 * {@code null} when nothing says so. Only a failed job is retried: the last recorded attempt
	 * failed it, or the row counts fewer attempts than it.
	 */
	private static @Nullable Instant retriedBeforePark(JobRecord job, JobAttempt last) {
		return (last.status() == JobStatus.FAILED || job.attempts() < last.attempt()) ? job.startedAt() : null;
	}

	private static String dueText(JobRecord job, @Nullable JobStep park, boolean signalled) {
		if (park == null) {
			return (job.attempts() > 0) ? "Due again (retry backoff)" : "Due";
		}
		if (park.kind() == JobStep.Kind.SLEEP) {
			return "Due again (its sleep ends)";
		}
		return signalled ? "Due again (signal '" + park.name() + "' came)"
				: "Due again (its wait for signal '" + park.name() + "' times out, unless the signal comes first)";
	}

	private static TimelineEvent requeued(@Nullable Instant at, int retry) {
		return new TimelineEvent(at, "requeued", "Queued again by an operator (operator retry " + retry
				+ "), with a fresh set of attempts; by this time at the latest", null, null);
	}

	/** An attempt's name: its number, and after an operator's retry, which retry it follows. */
	private static String attemptName(int number, int retries) {
		return (retries == 0) ? "Attempt " + number : "Operator retry " + retries + ", attempt " + number;
	}

	/** The same start, as read from the row and from its attempt's row (to the millisecond). */
	private static boolean sameMoment(Instant seen, Instant stored) {
		return Math.abs(Duration.between(seen, stored).toMillis()) < 1;
	}

	private static String finishedText(JobRecord job, int retries) {
		String round = (retries == 0) ? "" : " of operator retry " + retries;
		return switch (job.status()) {
			case SUCCEEDED -> "Succeeded after " + attemptsText(job.attempts()) + round;
			case FAILED -> "Failed for good after " + attemptsText(job.attempts()) + round;
			case CANCELLED -> "Cancelled";
			default -> "Finished";
		};
	}

	private static String attemptsText(int attempts) {
		return (attempts == 1) ? "1 attempt" : attempts + " attempts";
	}

	/** Events at the same moment in the order they happen. */
	private static int order(String event) {
		return List.of("requeued", "started", "parked", "ended", "due", "finished").indexOf(event);
	}

}
