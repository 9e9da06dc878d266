package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * What an application uses to put work in the queue and to look at it. An enqueue joins
 * the caller's Spring transaction when there is one, so the job exists only if the
 * caller's work commits (the transactional outbox); without one it commits at once.
 * <p>
 * A job whose handler this application has takes that handler's queue and maximum of
 * attempts unless the {@link Job} says otherwise; for any other handler, name the queue
 * that the handling application serves ({@link Job#queue(String)}), else it goes to
 * {@value #DEFAULT_QUEUE}. An enqueue for a handler this application neither has nor
 * declares as remote is warned about or refused, as its
 * {@link io.sqlqueue.handler.UnknownHandlerPolicy} says.
 * <p>
 * The implementation the starter builds is {@code io.sqlqueue.internal.DefaultJobQueue}.
 */
public interface JobQueue {

	/** The queue of jobs that name none and whose handler is unknown here. */
	String DEFAULT_QUEUE = "default";

	/** The attempts of a job whose handler and enqueue name none: the configured default. */
	int defaultMaxAttempts();

	/** Enqueues a job for {@code handler} with this payload, due now; returns its id. */
	long enqueue(String handler, @Nullable Object payload);

	/**
	 * Enqueues a job; returns its id.
	 * @throws InvalidJobException for an invalid name, or a payload that is oversized, unencodable or not
	 * storable by the database (a NUL character, nested too deep); nothing is written
	 * @throws DuplicateJobException when an unfinished job has the same unique key
	 */
	long enqueue(Job job);

	/**
	 * Enqueues jobs in one round trip, all or nothing; returns their ids in order. A
	 * duplicate unique key throws {@link DuplicateJobException}: inside a transaction, let
	 * it roll back.
	 */
	List<Long> enqueueAll(List<Job> jobs);

	/**
	 * Enqueues a workflow, its jobs and the order between them, in one transaction (the
	 * caller's when there is one), all or nothing; returns the jobs' ids by step name. A step
	 * is {@code WAITING} until the steps and jobs it runs after have succeeded.
	 * @throws InvalidJobException as {@link #enqueue(Job)}, and for a job it runs after that
	 * does not exist (never enqueued, or pruned) or has ended in a way that would cancel the
	 * step at once; nothing is written
	 */
	WorkflowIds enqueue(Workflow workflow);

	/**
	 * Enqueues a batch, and its callback job, in one transaction (the caller's when there is
	 * one), all or nothing. The callback is {@code WAITING} until every job of the batch has
	 * finished; then it runs once, and reads the counts from {@link JobContext#batch()}.
	 */
	BatchIds enqueue(Batch batch);

	/**
	 * Enqueues the job a schedule fires for {@code tick}, in the caller's transaction (the
	 * one that moves the schedule on); the handler sees the tick as
	 * {@link JobContext#scheduledFor()}.
	 */
	long enqueueForTick(Job job, Instant tick);

	/**
	 * What the views of a job for this handler say when this application neither has the
	 * handler nor declares it as remote; empty when it has or declares it.
	 */
	Optional<String> unknownHandlerNotice(String handler);

	/** The job with this id, as stored now. */
	Optional<JobRecord> find(long id);

	/**
	 * Where the job with this id stands in a workflow: the jobs it runs after and those that
	 * run after it, with their states now, what it still waits for, and its batch. Empty when
	 * there is no such job; a job outside any workflow has no links.
	 */
	Optional<JobLinks> links(long id);

	/**
	 * The workflow around the job with this id: every job linked to it through dependencies,
	 * both ways (up to {@link WorkflowGraph#MAX_JOBS}), in its state now, and the edges. Empty
	 * when there is no such job.
	 */
	Optional<WorkflowGraph> graph(long id);

	/** The batch of this id, with its counts now; empty when there is none (or it was pruned). */
	Optional<BatchProgress> batch(long batchId);

	/**
	 * Waits for the job to reach a final state, at most {@code timeout}, and returns how it
	 * ended. Works for a job run by any instance.
	 * @throws AwaitTimeoutException when it has not finished in time (the job is unchanged)
	 * @throws NoSuchJobException when there is no such job
	 * @throws IllegalStateException when the job was enqueued in the current transaction,
	 * which has not committed: no worker can see it, so the wait could never end
	 * @throws InterruptedException when the waiting thread is interrupted
	 */
	JobResult await(long id, Duration timeout) throws InterruptedException;

	/**
	 * A future completed when the job reaches a final state (or exceptionally with
	 * {@link NoSuchJobException}); bound it with {@code orTimeout}. Cancelling the future
	 * stops the waiting, not the job.
	 * @throws IllegalStateException when the job was enqueued in the current transaction,
	 * which has not committed (see {@link #await})
	 */
	CompletableFuture<JobResult> whenFinished(long id);

	/**
	 * Cancels a job: a {@code QUEUED} job is {@code CANCELLED} at once; for a {@code RUNNING}
	 * one the cancel is asked for, and the instance that holds it stops it (at once on this
	 * instance and through PostgreSQL's notifications, else at its next heartbeat): its handler
	 * is interrupted and sees {@link JobContext#isCancellationRequested()}, and the job ends
	 * {@code CANCELLED}, never retried — unless it finishes first. Returns false when the job
	 * is neither queued nor running (finished, or no such job).
	 */
	boolean cancel(long id);

	/** Called with the ids of running jobs whose cancel was asked for here, after the request commits. */
	void addCancelListener(Consumer<Set<Long>> listener);

	void removeCancelListener(Consumer<Set<Long>> listener);

	/**
	 * Sends the job a signal (docs/durable-steps.md#signals): kept with the job, and read by
	 * {@link JobContext#awaitSignal} of this name; a job parked waiting for it is woken. In
	 * the caller's transaction when there is one: delivered only if it commits.
	 * @param name 1 to 255 characters, no NUL; one signal per name and job
	 * @param payload encoded as JSON, within the payload limit ({@code sqlqueue.payload-max-size})
	 * @throws NoSuchJobException when there is no such job
	 * @throws IllegalStateException when the job succeeded or was cancelled, or already has a
	 * signal of this name; nothing is stored (a {@code FAILED} job takes signals: a late
	 * callback is kept for an operator's retry of the job to read)
	 * @throws InvalidJobException for a bad name or a payload that cannot be encoded or is too large
	 */
	void signal(long id, String name, @Nullable Object payload);

	/** What the job's runs recorded: its steps, sleeps and waits for signals, in the order they were recorded. */
	List<JobStep> steps(long id);

	/** The signals sent to the job, oldest first (by the time their transaction wrote them; ties by name). */
	List<JobSignal> signals(long id);

	/** Queues a {@code FAILED} job again with a fresh set of attempts; returns false when it is not failed. */
	boolean retry(long id);

	/** Called with the queues that got new jobs, after the enqueue commits (used to wake workers up). */
	void addEnqueueListener(Consumer<Set<String>> listener);

	void removeEnqueueListener(Consumer<Set<String>> listener);

}
