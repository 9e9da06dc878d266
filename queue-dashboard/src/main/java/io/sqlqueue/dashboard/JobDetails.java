package io.sqlqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.BatchProgress;
import io.sqlqueue.JobLinks;
import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.dashboard.JobDetail.TimelineEvent;

/**
 * Reads one job for the detail page and builds its timeline: enqueued, due, each attempt's
 * start, end and owner, and how it finished. The table holds the latest attempt only;
 * earlier ones come from this instance's {@link AttemptLog}, and the timeline says how
 * many ran elsewhere or before this instance started. An operator's retry starts the row's
 * count of attempts again, so the attempts after it are named by the retry they follow
 * ("Operator retry 1, attempt 1"), never as a second "Attempt 1".
 */
public class JobDetails {

	private final JobQueue jobs;

	private final AttemptLog attempts;

	private final boolean showPayload;

	/** @param showPayload whether payloads are shown */
	public JobDetails(JobQueue jobs, AttemptLog attempts, boolean showPayload) {
		this.jobs = jobs;
		this.attempts = attempts;
		this.showPayload = showPayload;
	}

	public Optional<JobDetail> find(long id) {
		return this.jobs.find(id).map(this::detail);
	}

	private JobDetail detail(JobRecord job) {
		return new JobDetail(job.id(), job.queue(), job.handler(), job.status(), job.attempts(), job.maxAttempts(),
				job.priority(), job.uniqueKey(), job.groupKey(), job.runAt(), job.createdAt(), job.updatedAt(),
				job.startedAt(), job.finishedAt(), job.scheduledFor(), job.leaseOwner(), job.leaseExpiresAt(),
				job.lastError(), job.result(), this.showPayload ? job.payload() : null, this.showPayload,
				timeline(job), actions(job.status()), workflow(job.id()), handlerNotice(job));
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

	/** The actions a job's state allows; the same rules as {@link JobQueue#retry} and {@link JobQueue#cancel}. */
	static List<String> actions(JobStatus status) {
		return switch (status) {
			case FAILED -> List.of("retry");
			case WAITING, QUEUED, RUNNING -> List.of("cancel");
			default -> List.of();
		};
	}

	List<TimelineEvent> timeline(JobRecord job) {
		List<TimelineEvent> events = new ArrayList<>();
		List<AttemptLog.Attempt> seen = this.attempts.of(job.id());
		// An operator's retry starts the row's attempt count again from 1: the attempts after
		// it are named by the retry, so that two attempts never share a name.
		int retries = 0;
		int previous = 0;
		Set<Integer> thisRound = new HashSet<>();
		for (AttemptLog.Attempt attempt : seen) {
			if (attempt.number() <= previous) {
				retries++;
				thisRound.clear();
				events.add(requeued(attempt.startedAt(), retries));
			}
			previous = attempt.number();
			thisRound.add(attempt.number());
			String name = attemptName(attempt.number(), retries);
			events.add(new TimelineEvent(attempt.startedAt(), "started", name + " started", attempt.owner()));
			if (attempt.endedAt() != null) {
				events.add(new TimelineEvent(attempt.endedAt(), "ended", name + " ended: " + attempt.outcome(),
						attempt.owner()));
			}
		}
		AttemptLog.Attempt last = seen.isEmpty() ? null : seen.get(seen.size() - 1);
		boolean rowStarted = job.startedAt() != null && job.attempts() > 0;
		boolean latestSeen = last != null && rowStarted && last.number() == job.attempts()
				&& sameMoment(last.startedAt(), job.startedAt());
		if (last != null && !latestSeen) {
			Instant retriedBy = retriedSince(job, last, rowStarted);
			if (retriedBy != null) {
				retries++;
				thisRound.clear();
				events.add(requeued(retriedBy, retries));
			}
		}
		if (!latestSeen && rowStarted) {
			thisRound.add(job.attempts());
			events.add(new TimelineEvent(job.startedAt(), "started", attemptName(job.attempts(), retries) + " started",
					job.leaseOwner()));
		}
		if (job.status() == JobStatus.QUEUED && job.runAt().isAfter(job.createdAt())) {
			events.add(new TimelineEvent(job.runAt(), "due",
					(job.attempts() > 0) ? "Due again (retry backoff)" : "Due", null));
		}
		if (job.finishedAt() != null) {
			events.add(new TimelineEvent(job.finishedAt(), "finished", finishedText(job, retries), null));
		}
		events.sort(Comparator.comparing(TimelineEvent::at, Comparator.nullsLast(Comparator.<Instant>naturalOrder()))
			.thenComparing((event) -> order(event.event())));
		List<TimelineEvent> timeline = new ArrayList<>();
		timeline.add(new TimelineEvent(job.createdAt(), "enqueued", (job.scheduledFor() != null)
				? "Enqueued by a schedule for its tick at " + job.scheduledFor() : "Enqueued", null));
		int unseen = 0;
		for (int number = 1; number <= job.attempts(); number++) {
			unseen += thisRound.contains(number) ? 0 : 1;
		}
		if (unseen > 0) {
			timeline.add(new TimelineEvent(null, "earlier", ((unseen == 1) ? "1 attempt" : unseen + " attempts")
					+ " ran on other instances or before this one started (only the latest attempt is stored)",
					null));
		}
		timeline.addAll(events);
		return timeline;
	}

	/**
	 * When, at the latest, an operator queued the job again after the last attempt this
	 * instance saw; {@code null} when nothing says so. The row shows it by a count of
	 * attempts started again (none yet, or no more than that attempt's number) or by an attempt
	 * started after that one failed for good.
	 */
	private static @Nullable Instant retriedSince(JobRecord job, AttemptLog.Attempt last, boolean rowStarted) {
		if (!rowStarted) {
			return (job.attempts() == 0 && last.endedAt() != null && job.updatedAt().isAfter(last.startedAt()))
					? job.updatedAt() : null;
		}
		boolean later = job.startedAt().isAfter(last.startedAt());
		return (later && (job.attempts() <= last.number() || JobOutcome.FAILED.tag().equals(last.outcome())))
				? job.startedAt() : null;
	}

	private static TimelineEvent requeued(Instant at, int retry) {
		return new TimelineEvent(at, "requeued", "Queued again by an operator (operator retry " + retry
				+ "), with a fresh set of attempts; by this time at the latest", null);
	}

	/** An attempt's name: its number, and after an operator's retry, which retry it follows. */
	private static String attemptName(int number, int retries) {
		return (retries == 0) ? "Attempt " + number : "Operator retry " + retries + ", attempt " + number;
	}

	/** The same start, as read from the row and as this instance kept it (to the millisecond). */
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
		return List.of("requeued", "started", "ended", "due", "finished").indexOf(event);
	}

}
