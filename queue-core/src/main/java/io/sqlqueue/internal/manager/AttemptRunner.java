package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobRecord;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.observation.JobObservations;

/**
 * Runs one claimed attempt on the calling thread: the one way an attempt runs, for the
 * Manager's workers and for the {@link JobRunner} (the test kit) alike. It starts the
 * attempt, puts its job's id, handler and attempt number in the MDC, starts its observation
 * (current on this thread until it stops), tells the listener it started, invokes the
 * handler with its {@link AttemptContext} (in the transaction that completes its job when
 * the handler is transactional, see {@link TransactionalAttempt}), and records how it ended
 * unless the timeout sweep or a cancel settled it first: a failure through the
 * {@link OutcomeRecorder}, a success of a handler that is not transactional through
 * {@link Successes}.
 * <p>
 * The two callers differ only where they must: a success goes to the Manager's
 * {@link Completer}, which records it a moment later with others, or is written at once by
 * the JobRunner, whose caller reads the outcome on return; and what follows an attempt (a
 * worker's lane frees its place) is the caller's.
 */
final class AttemptRunner {

	private final JobStore store;

	private final PayloadCodec codec;

	private final ManagerSettings settings;

	private final JobListener listener;

	private final JobObservations observations;

	private final OutcomeRecorder recorder;

	private final Successes successes;

	private final Consumer<Attempt> ran;

	/**
	 * @param listener guarded already (see {@link JobListener#guarded})
	 * @param successes where the success of a handler that is not transactional goes
	 * @param ran told after every attempt that started, once it ended, whatever happened
	 */
	AttemptRunner(JobStore store, PayloadCodec codec, ManagerSettings settings, JobListener listener,
			JobObservations observations, OutcomeRecorder recorder, Successes successes, Consumer<Attempt> ran) {
		this.store = store;
		this.codec = codec;
		this.settings = settings;
		this.listener = listener;
		this.observations = observations;
		this.recorder = recorder;
		this.successes = successes;
		this.ran = ran;
	}

	/** Starts and runs the attempt; false when it was released before it could start, so nothing ran. */
	boolean run(Attempt attempt) {
		if (!attempt.start()) {
			return false;
		}
		MDC.put("sqlqueue.jobId", String.valueOf(attempt.job.id()));
		MDC.put("sqlqueue.handler", attempt.job.handler());
		MDC.put("sqlqueue.attempt", String.valueOf(attempt.job.attempts()));
		JobObservations.Attempt observation = this.observations.attemptStarted(attempt.job);
		try {
			this.listener.started(attempt.job, waited(attempt.job));
			if (attempt.handler.transactional()) {
				TransactionalAttempt.run(attempt, context(attempt), this.store, this.recorder,
						(result) -> completion(attempt, result));
			}
			else {
				AttemptContext context = context(attempt);
				Object result = attempt.handler.invoker().invoke(attempt.job.payload(), context);
				context.handlerReturning();
				attempt.handlerReturned();
				if (attempt.settle()) {
					this.successes.succeeded(attempt, completion(attempt, result));
				}
			}
		}
		catch (Park park) {
			attempt.handlerReturned();
			if (attempt.settle()) {
				this.recorder.parked(attempt, park);
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
			MDC.remove("sqlqueue.jobId");
			MDC.remove("sqlqueue.handler");
			MDC.remove("sqlqueue.attempt");
			this.ran.accept(attempt);
		}
		return true;
	}

	private AttemptContext context(Attempt attempt) {
		return new AttemptContext(attempt, this.store, this.codec, this.recorder, this.settings.leaseDuration());
	}

	/** The success to record (see {@link Results#completion}). */
	private Completion completion(Attempt attempt, @Nullable Object result) {
		return Results.completion(this.codec, this.store, this.settings.resultMaxSize(), attempt, result);
	}

	private static Duration waited(JobRecord job) {
		Instant started = job.startedAt();
		return (started != null && started.isAfter(job.runAt())) ? Duration.between(job.runAt(), started)
				: Duration.ZERO;
	}

	/** Where the success of a handler that is not transactional goes, once the attempt is settled as such. */
	@FunctionalInterface
	interface Successes {

		/**
		 * The handler returned and the attempt is settled as a success: record it (and say
		 * {@link Attempt#endedAs} once it is known to have succeeded).
		 */
		void succeeded(Attempt attempt, Completion completion);

	}

}
