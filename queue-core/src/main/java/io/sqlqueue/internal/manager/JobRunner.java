package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.time.Instant;
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
 * it: a claim (a lease, a new token, one more attempt), the handler's invocation, then the
 * same fenced writes (complete, reschedule with the retry policy's backoff, fail), the same
 * listener events and the same observation — only on this thread, one job after another.
 * <p>
 * Not the Manager's: no heartbeat (an attempt that runs past the lease may be reaped and
 * run again), no timeout, and a cancel of a running job is noticed only by its write.
 */
public final class JobRunner {

	private final JobStore store;

	private final HandlerRegistry handlers;

	private final PayloadCodec codec;

	private final ManagerSettings settings;

	private final JobListener listener;

	private final JobObservations observations;

	private final OutcomeRecorder recorder;

	/**
	 * @param settings the worker id (the lease's owner), the lease duration, the retry policy
	 * and the largest stored result; the rest is the Manager's
	 */
	public JobRunner(JobStore store, HandlerRegistry handlers, PayloadCodec codec, ManagerSettings settings,
			JobListener listener, JobObservations observations) {
		this.store = store;
		this.handlers = handlers;
		this.codec = codec;
		this.settings = settings;
		this.listener = JobListener.guarded(listener);
		this.observations = observations;
		this.recorder = new OutcomeRecorder(store, settings.retryPolicy(), this.listener);
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
		HandlerDefinition handler = handlerOf(job);
		Attempt attempt = new Attempt(job, handler, new Lane(job.queue(), 1, 0), claimSentNanos,
				this.settings.leaseDuration());
		if (attempt.pastDeadline()) {
			attempt.release();
			this.recorder.expired(attempt);
			return new Ran(job, attempt.outcome());
		}
		attempt.start();
		this.listener.started(job, waited(job));
		JobObservations.Attempt observation = this.observations.attemptStarted(job);
		try {
			if (handler.transactional()) {
				TransactionalAttempt.run(attempt, context(attempt), this.store, this.recorder,
						(result) -> completion(attempt, result));
			}
			else {
				Object result = handler.invoker().invoke(job.payload(), context(attempt));
				attempt.handlerReturned();
				attempt.settle();
				boolean held = this.store.complete(List.of(completion(attempt, result)))[0];
				this.recorder.completed(attempt, held);
			}
		}
		catch (Throwable failure) {
			observation.error(failure);
			attempt.handlerReturned();
			if (attempt.settle()) {
				this.recorder.failed(attempt, failure, false);
			}
		}
		finally {
			observation.stop(attempt.outcome());
		}
		return new Ran(job, attempt.outcome());
	}

	private AttemptContext context(Attempt attempt) {
		return new AttemptContext(attempt, this.store, this.recorder, this.settings.leaseDuration());
	}

	private Completion completion(Attempt attempt, @Nullable Object result) {
		return Results.completion(this.codec, this.store, this.settings.resultMaxSize(), attempt, result);
	}

	private static Duration waited(JobRecord job) {
		Instant started = job.startedAt();
		return (started != null && started.isAfter(job.runAt())) ? Duration.between(job.runAt(), started)
				: Duration.ZERO;
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
