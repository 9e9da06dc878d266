package io.sqlqueue.dashboard;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.dashboard.JobDetail.TimelineEvent;
import io.sqlqueue.workflow.BatchProgress;
import io.sqlqueue.workflow.JobLinks;

/**
 * Reads one job for the detail page and builds its timeline: enqueued, due, each attempt's
 * start, end and owner, and how it finished. The table holds the latest attempt only;
 * earlier ones come from this instance's {@link AttemptLog}, and the timeline says how
 * many ran elsewhere or before this instance started.
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
		return yetToRun ? this.jobs.unknownHandlers().notice(job.handler()).orElse(null) : null;
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
		boolean latestSeen = !seen.isEmpty() && seen.get(seen.size() - 1).number() == job.attempts();
		int previous = 0;
		for (AttemptLog.Attempt attempt : seen) {
			if (attempt.number() <= previous) {
				// Numbering starts again only when an operator queued the job again with fresh attempts.
				events.add(new TimelineEvent(attempt.startedAt(), "requeued",
						"Queued again by an operator (by this time at the latest), with a fresh set of attempts", null));
			}
			previous = attempt.number();
			events.add(new TimelineEvent(attempt.startedAt(), "started", "Attempt " + attempt.number() + " started",
					attempt.owner()));
			if (attempt.endedAt() != null) {
				events.add(new TimelineEvent(attempt.endedAt(), "ended",
						"Attempt " + attempt.number() + " ended: " + attempt.outcome(), attempt.owner()));
			}
		}
		if (!latestSeen && job.startedAt() != null && job.attempts() > 0) {
			events.add(new TimelineEvent(job.startedAt(), "started", "Attempt " + job.attempts() + " started",
					job.leaseOwner()));
		}
		if (job.status() == JobStatus.QUEUED && job.runAt().isAfter(job.createdAt())) {
			events.add(new TimelineEvent(job.runAt(), "due",
					(job.attempts() > 0) ? "Due again (retry backoff)" : "Due", null));
		}
		if (job.finishedAt() != null) {
			events.add(new TimelineEvent(job.finishedAt(), "finished", finishedText(job), null));
		}
		events.sort(Comparator.comparing(TimelineEvent::at, Comparator.nullsLast(Comparator.<Instant>naturalOrder()))
			.thenComparing((event) -> order(event.event())));
		List<TimelineEvent> timeline = new ArrayList<>();
		timeline.add(new TimelineEvent(job.createdAt(), "enqueued", (job.scheduledFor() != null)
				? "Enqueued by a schedule for its tick at " + job.scheduledFor() : "Enqueued", null));
		int unseen = unseenAttempts(job, seen);
		if (unseen > 0) {
			timeline.add(new TimelineEvent(null, "earlier", ((unseen == 1) ? "1 attempt" : unseen + " attempts")
					+ " ran on other instances or before this one started (only the latest attempt is stored)",
					null));
		}
		timeline.addAll(events);
		return timeline;
	}

	/** Attempts of the current count that neither this instance saw nor the row holds (the latest). */
	private static int unseenAttempts(JobRecord job, List<AttemptLog.Attempt> seen) {
		java.util.Set<Integer> known = new java.util.HashSet<>();
		seen.forEach((attempt) -> known.add(attempt.number()));
		if (job.startedAt() != null) {
			known.add(job.attempts());
		}
		int unseen = 0;
		for (int number = 1; number <= job.attempts(); number++) {
			unseen += known.contains(number) ? 0 : 1;
		}
		return unseen;
	}

	private static String finishedText(JobRecord job) {
		return switch (job.status()) {
			case SUCCEEDED -> "Succeeded after " + attemptsText(job.attempts());
			case FAILED -> "Failed for good after " + attemptsText(job.attempts());
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
