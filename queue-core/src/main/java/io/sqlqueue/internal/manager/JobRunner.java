package io.sqlqueue.internal.manager;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobRecord;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.observation.JobObservations;

/**
 * Runs jobs on the calling thread, without a {@link Manager}: for tests (the test kit) and
 * tools that drive the queue one step at a time. Each job goes the way the Manager takes
 * it: a claim (a lease, a new token, one more attempt), then the Manager's own
 * {@link AttemptRunner} — the same MDC, observation, listener events, handler invocation
 * and fenced writes (complete, reschedule with the retry policy's backoff, fail) — only on
 * this thread, one job after another.
 * <p>
 * Not the Manager's: a success is written at once rather than with others a moment later,
 * so the outcome is known on return; no heartbeat (an attempt that runs past the lease may
 * be reaped and run again), no timeout, and a cancel of a running job is noticed only by
 * its write.
 */
public final class JobRunner {

	private final JobStore store;

	private final HandlerRegistry handlers;

	private final ManagerSettings settings;

	private final JobListener listener;

	private final OutcomeRecorder recorder;

	private final AttemptRunner attempts;

	/**
	 * @param settings the worker id (the lease's owner), the lease duration, the retry policy
	 * and the largest stored result; the rest is the Manager's
	 */
	public JobRunner(JobStore store, HandlerRegistry handlers, PayloadCodec codec, ManagerSettings settings,
			JobListener listener, JobObservations observations) {
		this.store = store;
		this.handlers = handlers;
		this.settings = settings;
		this.listener = JobListener.guarded(listener);
		this.recorder = new OutcomeRecorder(store, settings.retryPolicy(), this.listener);
		this.attempts = new AttemptRunner(store, codec, settings, this.listener, observations, this.recorder,
				this::succeeded, (attempt) -> {
				});
	}

	/**
	 * Claims up to {@code limit} due jobs of the queue whose handler the registry has, and
	 * runs them in run order (priority, due time, id); returns how each attempt ended.
	 */
	public List<Ran> runDue(String queue, int limit) {
		List<String> names = this.handlers.names();
		if (names.isEmpty()) {
			return List.of();
		}
		long sent = System.nanoTime();
		List<JobRecord> claimed = this.store.claim(new ClaimRequest(this.settings.workerId(), queue, names, limit,
				this.settings.leaseDuration().toMillis()));
		this.listener.claimed(queue, claimed.size());
		List<Ran> ran = new ArrayList<>(claimed.size());
		for (JobRecord job : claimed) {
			ran.add(run(job, sent));
		}
		return ran;
	}

	/**
	 * Claims the {@code QUEUED} job of this id, due or not, and runs it; empty when it is not
	 * queued (finished, running, or no such job).
	 * @throws IllegalStateException when another job of its group is running
	 * @throws IllegalArgumentException when the registry has no handler for it
	 */
	public Optional<Ran> run(long id) {
		JobRecord queued = this.store.find(id).orElse(null);
		if (queued == null) {
			return Optional.empty();
		}
		handlerOf(queued);
		long sent = System.nanoTime();
		Optional<JobRecord> claimed;
		try {
			claimed = this.store.claimById(id, this.settings.workerId(), this.settings.leaseDuration().toMillis());
		}
		catch (DuplicateKeyException ex) {
			throw new IllegalStateException("Job " + id + " cannot start: another job of its group ("
					+ queued.groupKey() + ") is running", ex);
		}
		claimed.ifPresent((job) -> this.listener.claimed(job.queue(), 1));
		return claimed.map((job) -> run(job, sent));
	}

	private HandlerDefinition handlerOf(JobRecord job) {
		return this.handlers.find(job.handler())
			.orElseThrow(() -> new IllegalArgumentException(
					"Job " + job.id() + " is for handler '" + job.handler() + "', which this application does not have"));
	}

	private Ran run(JobRecord job, long claimSentNanos) {
		Attempt attempt = new Attempt(job, handlerOf(job), new Lane(job.queue(), 1, 0), claimSentNanos,
				this.settings.leaseDuration());
		if (attempt.pastDeadline()) {
			attempt.release();
			this.recorder.expired(attempt);
		}
		else {
			this.attempts.run(attempt);
		}
		return new Ran(job, attempt.outcome());
	}

	/** A success, written at once: the caller reads the job's outcome when {@link #run} returns. */
	private void succeeded(Attempt attempt, Completion completion) {
		boolean held = this.store.complete(List.of(completion))[0];
		this.recorder.completed(attempt, held);
	}

	/**
	 * One attempt run here.
	 * @param job the job as claimed for the attempt (its {@code attempts} is this attempt's number)
	 * @param outcome how it ended: {@code SUCCEEDED}, {@code RETRIED} (queued again after a
	 * backoff), {@code FAILED}, {@code CANCELLED} (its cancel was asked for meanwhile) or
	 * {@code EXPIRED} (its deadline had passed); {@code null} when its lease was lost
	 */
	public record Ran(JobRecord job, @Nullable JobOutcome outcome) {
	}

}
