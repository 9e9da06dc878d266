package io.sqlqueue.observation;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobRecord;

/**
 * What observes the queue's enqueues and attempts, and carries the propagation context
 * (a trace) from the one to the other in the job's {@code headers}. {@link #NONE} observes
 * nothing and stores no headers; {@link MicrometerJobObservations} uses an
 * {@code ObservationRegistry}. Free of Micrometer types, so the queue runs without it.
 */
public interface JobObservations {

	/** Observes nothing: no observation, no headers, nothing to pay. */
	JobObservations NONE = new JobObservations() {
	};

	/**
	 * Starts the observation of one job's enqueue, before its insert: its
	 * {@link Enqueue#headers()} are stored with the job.
	 */
	default Enqueue enqueueStarted(String queue, String handler) {
		return Enqueue.NONE;
	}

	/**
	 * Starts the observation of one attempt, on the thread that runs it, as the child of the
	 * context stored with the job; it is current on that thread until {@link Attempt#stop}.
	 */
	default Attempt attemptStarted(JobRecord job) {
		return Attempt.NONE;
	}

	/** One enqueue, under way. */
	interface Enqueue {

		Enqueue NONE = new Enqueue() {
		};

		/** The propagation context to store with the job, as a JSON object of strings; {@code null} for none. */
		default @Nullable String headers() {
			return null;
		}

		/** The insert committed to the caller's work with this id. */
		default void enqueued(long jobId) {
		}

		/** The insert failed: nothing was enqueued. */
		default void failed(Throwable error) {
		}

	}

	/** One attempt, under way on the current thread. */
	interface Attempt {

		Attempt NONE = new Attempt() {
		};

		/** The handler threw this. */
		default void error(Throwable error) {
		}

		/**
		 * The attempt ended as {@code outcome} ({@code null} when it is not known here, such
		 * as a lost lease); closes its scope on this thread.
		 */
		default void stop(@Nullable JobOutcome outcome) {
		}

	}

}
