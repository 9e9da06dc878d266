package io.sqlqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobRecord;
import io.sqlqueue.ReapedJob;

/**
 * The attempts this instance ran (or reaped) recently, for the timeline of a job: the
 * table keeps only a job's latest attempt, so the start, end and owner of earlier ones
 * exist only where they were seen. Bounded: the attempts of the most recent jobs only,
 * kept in memory, lost at restart.
 */
public class AttemptLog implements JobListener {

	private final int maxJobs;

	private final Map<Long, List<Attempt>> attempts;

	/** @param maxJobs the most jobs whose attempts are kept; 0 keeps none */
	public AttemptLog(int maxJobs) {
		this.maxJobs = maxJobs;
		this.attempts = new LinkedHashMap<>(16, 0.75f, false) {
			@Override
			protected boolean removeEldestEntry(Map.Entry<Long, List<Attempt>> eldest) {
				return size() > AttemptLog.this.maxJobs;
			}
		};
	}

	@Override
	public void started(JobRecord job, Duration waited) {
		if (this.maxJobs == 0) {
			return;
		}
		Instant at = (job.startedAt() != null) ? job.startedAt() : Instant.now();
		synchronized (this.attempts) {
			this.attempts.computeIfAbsent(job.id(), (id) -> new ArrayList<>())
				.add(new Attempt(job.attempts(), job.leaseOwner(), at, null, null));
		}
	}

	@Override
	public void finished(JobRecord job, JobOutcome outcome, Duration took) {
		end(job.id(), job.attempts(), outcome.tag(), (job.startedAt() != null) ? job.startedAt().plus(took) : null);
	}

	@Override
	public void reaped(ReapedJob job) {
		end(job.id(), -1, job.failed() ? "lease expired, failed" : "lease expired, re-queued", Instant.now());
	}

	private void end(long jobId, int attempt, String outcome, @Nullable Instant at) {
		if (this.maxJobs == 0) {
			return;
		}
		synchronized (this.attempts) {
			List<Attempt> ofJob = this.attempts.get(jobId);
			if (ofJob == null || ofJob.isEmpty()) {
				return;
			}
			int last = ofJob.size() - 1;
			Attempt open = ofJob.get(last);
			if ((attempt < 0 || open.number() == attempt) && open.endedAt() == null) {
				ofJob.set(last, new Attempt(open.number(), open.owner(), open.startedAt(),
						(at != null) ? at : Instant.now(), outcome));
			}
		}
	}

	/** The attempts of this job this instance saw, oldest first. */
	public List<Attempt> of(long jobId) {
		synchronized (this.attempts) {
			return List.copyOf(this.attempts.getOrDefault(jobId, List.of()));
		}
	}

	/**
	 * One attempt as this instance saw it.
	 * @param number which attempt, from 1
	 * @param startedAt when it was claimed (database clock)
	 * @param endedAt when it ended (its start plus how long it ran), or {@code null} while it runs
	 * @param outcome how it ended ({@code succeeded}, {@code retried}, {@code failed}, or a lost lease)
	 */
	public record Attempt(int number, @Nullable String owner, Instant startedAt, @Nullable Instant endedAt,
			@Nullable String outcome) {
	}

}
