package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.sqlqueue.await.JobAwaiter;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.HandlerRegistry;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.handler.UnknownHandlers;
import io.sqlqueue.observation.JobObservations;
import io.sqlqueue.store.AfterCommit;
import io.sqlqueue.store.JobStore;
import io.sqlqueue.store.LinkedIds;
import io.sqlqueue.store.LinkedJobs;
import io.sqlqueue.store.NewJob;

/**
 * What an application uses to put work in the queue and to look at it. An enqueue joins
 * the caller's Spring transaction when there is one, so the job exists only if the
 * caller's work commits (the transactional outbox); without one it commits at once.
 * <p>
 * A job whose handler this application has takes that handler's queue and maximum of
 * attempts unless the {@link Job} says otherwise; for any other handler, name the queue
 * that the handling application serves ({@link Job#queue(String)}), else it goes to
 * {@value #DEFAULT_QUEUE}. An enqueue for a handler this application neither has nor
 * declares as remote is warned about or refused by its {@link UnknownHandlers}.
 */
public class JobQueue {

	/** The queue of jobs that name none and whose handler is unknown here. */
	public static final String DEFAULT_QUEUE = "default";

	private final JobStore store;

	private final PayloadCodec codec;

	private final HandlerRegistry handlers;

	private final RetryPolicy retryPolicy;

	private final JobListener listener;

	private final JobAwaiter awaiter;

	private final JobObservations observations;

	private final UnknownHandlers unknownHandlers;

	private final List<Consumer<Set<String>>> enqueueListeners = new CopyOnWriteArrayList<>();

	private final List<Consumer<Set<Long>>> cancelListeners = new CopyOnWriteArrayList<>();

	/** The key of the ids this queue enqueued in the current, uncommitted transaction. */
	private final Object uncommitted = new Object();

	public JobQueue(JobStore store, PayloadCodec codec, HandlerRegistry handlers, RetryPolicy retryPolicy) {
		this(store, codec, handlers, retryPolicy, JobListener.NONE);
	}

	public JobQueue(JobStore store, PayloadCodec codec, HandlerRegistry handlers, RetryPolicy retryPolicy,
			JobListener listener) {
		this(store, codec, handlers, retryPolicy, listener, new JobAwaiter(store, codec));
	}

	/**
	 * @param awaiter what completes {@link #await} and {@link #whenFinished}: the Manager's
	 * listener and the notifications should tell it of finished jobs, or it only polls
	 */
	public JobQueue(JobStore store, PayloadCodec codec, HandlerRegistry handlers, RetryPolicy retryPolicy,
			JobListener listener, JobAwaiter awaiter) {
		this(store, codec, handlers, retryPolicy, listener, awaiter, JobObservations.NONE);
	}

	/**
	 * @param observations what observes each enqueue and gives the propagation context (a
	 * trace) to store with its job; {@link JobObservations#NONE} stores none
	 */
	public JobQueue(JobStore store, PayloadCodec codec, HandlerRegistry handlers, RetryPolicy retryPolicy,
			JobListener listener, JobAwaiter awaiter, JobObservations observations) {
		this(store, codec, handlers, retryPolicy, listener, awaiter, observations, new UnknownHandlers(handlers));
	}

	/**
	 * @param unknownHandlers what an enqueue for a handler this application lacks does; by
	 * default it warns once per name
	 */
	public JobQueue(JobStore store, PayloadCodec codec, HandlerRegistry handlers, RetryPolicy retryPolicy,
			JobListener listener, JobAwaiter awaiter, JobObservations observations, UnknownHandlers unknownHandlers) {
		this.unknownHandlers = unknownHandlers;
		this.observations = observations;
		this.store = store;
		this.codec = codec;
		this.handlers = handlers;
		this.retryPolicy = retryPolicy;
		this.listener = JobListener.guarded(listener);
		this.awaiter = awaiter;
	}

	/** The attempts of a job whose handler and enqueue name none: the configured default. */
	public int defaultMaxAttempts() {
		return this.retryPolicy.maxAttempts();
	}

	/** Enqueues a job for {@code handler} with this payload, due now; returns its id. */
	public long enqueue(String handler, @Nullable Object payload) {
		return enqueue(Job.of(handler, payload));
	}

	/**
	 * Enqueues a job; returns its id.
	 * @throws InvalidJobException for an invalid name, or a payload that is oversized, unencodable or not
	 * storable by the database (a NUL character, nested too deep); nothing is written
	 * @throws DuplicateJobException when an unfinished job has the same unique key
	 */
	public long enqueue(Job job) {
		return enqueueAll(List.of(job)).get(0);
	}

	/**
	 * Enqueues jobs in one round trip, all or nothing; returns their ids in order. A
	 * duplicate unique key throws {@link DuplicateJobException}: inside a transaction, let
	 * it roll back.
	 */
	public List<Long> enqueueAll(List<Job> jobs) {
		if (jobs.stream().allMatch(JobQueue::isPlain)) {
			return insert(jobs.stream().map(this::checkedRow).toList(), this.store::insert);
		}
		List<List<Integer>> within = jobs.stream().map((job) -> List.<Integer>of()).toList();
		return insertLinked(jobs, within, false, -1).jobIds();
	}

	/**
	 * Enqueues a workflow, its jobs and the order between them, in one transaction (the
	 * caller's when there is one), all or nothing; returns the jobs' ids by step name. A step
	 * is {@code WAITING} until the steps and jobs it runs after have succeeded.
	 * @throws InvalidJobException as {@link #enqueue(Job)}, and for a job it runs after that
	 * does not exist (never enqueued, or pruned) or has ended in a way that would cancel the
	 * step at once; nothing is written
	 */
	public WorkflowIds enqueue(Workflow workflow) {
		List<String> names = new ArrayList<>(workflow.steps().keySet());
		List<Job> jobs = new ArrayList<>();
		List<List<Integer>> within = new ArrayList<>();
		workflow.steps().values().forEach((step) -> {
			jobs.add(step.job());
			within.add(step.after().stream().map(names::indexOf).toList());
		});
		List<Long> ids = insertLinked(jobs, within, false, -1).jobIds();
		Map<String, Long> byName = new LinkedHashMap<>();
		for (int i = 0; i < names.size(); i++) {
			byName.put(names.get(i), ids.get(i));
		}
		return new WorkflowIds(java.util.Collections.unmodifiableMap(byName));
	}

	/**
	 * Enqueues a batch, and its callback job, in one transaction (the caller's when there is
	 * one), all or nothing. The callback is {@code WAITING} until every job of the batch has
	 * finished; then it runs once, and reads the counts from {@link JobContext#batch()}.
	 */
	public BatchIds enqueue(Batch batch) {
		List<Job> jobs = new ArrayList<>(batch.jobs());
		Job callback = batch.callback();
		if (callback != null) {
			jobs.add(callback);
		}
		List<List<Integer>> within = jobs.stream().map((job) -> List.<Integer>of()).toList();
		LinkedIds ids = insertLinked(jobs, within, true, (callback != null) ? jobs.size() - 1 : -1);
		List<Long> members = ids.jobIds().subList(0, batch.jobs().size());
		return new BatchIds(java.util.Objects.requireNonNull(ids.batchId()), List.copyOf(members),
				(callback != null) ? ids.jobIds().get(jobs.size() - 1) : null);
	}

	private static boolean isPlain(Job job) {
		return job.after().isEmpty() && job.onDependencyFailure() == DependencyFailure.CANCEL;
	}

	private LinkedIds insertLinked(List<Job> jobs, List<List<Integer>> within, boolean batch, int callback) {
		List<DependencyFailure> policies = jobs.stream().map(Job::onDependencyFailure).toList();
		List<List<Long>> earlier = jobs.stream().map(Job::after).toList();
		LinkedIds[] written = new LinkedIds[1];
		insert(jobs.stream().map(this::checkedRow).toList(), (rows) -> {
			written[0] = this.store.insert(new LinkedJobs(rows, earlier, within, policies, batch, callback));
			return written[0].jobIds();
		});
		return written[0];
	}

	/**
	 * Enqueues the job a schedule fires for {@code tick}, in the caller's transaction (the
	 * one that moves the schedule on); the handler sees the tick as
	 * {@link JobContext#scheduledFor()}.
	 */
	public long enqueueForTick(Job job, Instant tick) {
		return insert(List.of(toRow(job).forTick(tick)), this.store::insert).get(0);
	}

	/**
	 * Inserts the rows with {@code write}, and tells the listeners and wakes the Managers
	 * once they commit.
	 */
	private List<Long> insert(List<NewJob> rows, Function<List<NewJob>, List<Long>> write) {
		Map<List<String>, Integer> counts = new LinkedHashMap<>();
		rows.forEach((row) -> counts.merge(List.of(row.queue(), row.handler()), 1, Integer::sum));
		List<Long> ids = (this.observations == JobObservations.NONE) ? write.apply(rows) : observedInsert(rows, write);
		rememberUncommitted(ids);
		afterCommit(() -> {
			counts.forEach((key, count) -> this.listener.enqueued(key.get(0), key.get(1), count));
			Set<String> queues = new LinkedHashSet<>();
			counts.keySet().forEach((key) -> queues.add(key.get(0)));
			this.enqueueListeners.forEach((listener) -> listener.accept(queues));
		});
		return ids;
	}

	/** Inserts the rows, each inside its enqueue's observation, with the headers it gives. */
	private List<Long> observedInsert(List<NewJob> rows, Function<List<NewJob>, List<Long>> write) {
		List<JobObservations.Enqueue> enqueues = new ArrayList<>(rows.size());
		List<NewJob> withHeaders = new ArrayList<>(rows.size());
		for (NewJob row : rows) {
			JobObservations.Enqueue enqueue = this.observations.enqueueStarted(row.queue(), row.handler());
			enqueues.add(enqueue);
			withHeaders.add(row.withHeaders(enqueue.headers()));
		}
		List<Long> ids;
		try {
			ids = write.apply(withHeaders);
		}
		catch (RuntimeException ex) {
			enqueues.forEach((enqueue) -> enqueue.failed(ex));
			throw ex;
		}
		for (int i = 0; i < ids.size(); i++) {
			enqueues.get(i).enqueued(ids.get(i));
		}
		return ids;
	}

	/**
	 * The row of a job the application enqueues, its handler checked. A schedule's job is
	 * not: a schedule may name another service's handler on purpose, and the firer must not
	 * fail on it.
	 */
	private NewJob checkedRow(Job job) {
		NewJob row = toRow(job);
		this.unknownHandlers.check(row.handler());
		return row;
	}

	private NewJob toRow(Job job) {
		String handler = Names.requireHandler(job.handler());
		Optional<HandlerDefinition> definition = this.handlers.find(handler);
		String queue = Names.requireQueue((job.queue() != null) ? job.queue()
				: definition.map(HandlerDefinition::queue).orElse(DEFAULT_QUEUE));
		Integer maxAttempts = (job.maxAttempts() != null) ? job.maxAttempts()
				: definition.map(HandlerDefinition::maxAttempts).orElse(null);
		Duration delay = (job.delay() != null) ? job.delay() : Duration.ZERO;
		String payload = this.codec.encodePayload(job.payload(), handler);
		String problem = this.store.whyNotStorable(payload);
		if (problem != null) {
			throw new InvalidJobException("The payload of a '" + handler + "' job cannot be stored: " + problem);
		}
		return new NewJob(queue, handler, payload, job.priority(), job.runAt(), delay.toMillis(),
				(maxAttempts != null) ? maxAttempts : this.retryPolicy.maxAttempts(), job.uniqueKey(), job.groupKey(),
				job.deadline(), (job.expireAfter() != null) ? job.expireAfter().toMillis() : null, null, null,
				job.concurrencyKey());
	}

	/** What an enqueue for a handler this application lacks does, and what the views of such a job say. */
	public UnknownHandlers unknownHandlers() {
		return this.unknownHandlers;
	}

	/** The job with this id, as stored now. */
	public Optional<JobRecord> find(long id) {
		return this.store.find(id);
	}

	/**
	 * Where the job with this id stands in a workflow: the jobs it runs after and those that
	 * run after it, with their states now, what it still waits for, and its batch. Empty when
	 * there is no such job; a job outside any workflow has no links.
	 */
	public Optional<JobLinks> links(long id) {
		return this.store.workflows().links(id);
	}

	/**
	 * The workflow around the job with this id: every job linked to it through dependencies,
	 * both ways (up to {@link WorkflowGraph#MAX_JOBS}), in its state now, and the edges. Empty
	 * when there is no such job.
	 */
	public Optional<WorkflowGraph> graph(long id) {
		return this.store.workflows().graph(id);
	}

	/** The batch of this id, with its counts now; empty when there is none (or it was pruned). */
	public Optional<BatchProgress> batch(long batchId) {
		return this.store.workflows().batch(batchId);
	}

	/**
	 * Waits for the job to reach a final state, at most {@code timeout}, and returns how it
	 * ended. Works for a job run by any instance.
	 * @throws AwaitTimeoutException when it has not finished in time (the job is unchanged)
	 * @throws NoSuchJobException when there is no such job
	 * @throws IllegalStateException when the job was enqueued in the current transaction,
	 * which has not committed: no worker can see it, so the wait could never end
	 * @throws InterruptedException when the waiting thread is interrupted
	 */
	public JobResult await(long id, Duration timeout) throws InterruptedException {
		CompletableFuture<JobResult> future = whenFinished(id);
		try {
			return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw new AwaitTimeoutException(id, timeout);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException failure) ? failure : new IllegalStateException(ex);
		}
		finally {
			future.cancel(false);
		}
	}

	/**
	 * A future completed when the job reaches a final state (or exceptionally with
	 * {@link NoSuchJobException}); bound it with {@code orTimeout}. Cancelling the future
	 * stops the waiting, not the job.
	 * @throws IllegalStateException when the job was enqueued in the current transaction,
	 * which has not committed (see {@link #await})
	 */
	public CompletableFuture<JobResult> whenFinished(long id) {
		if (enqueuedInCurrentTransaction(id)) {
			throw new IllegalStateException("Job " + id + " was enqueued in the current transaction, which has not "
					+ "committed: no worker can see it, so awaiting it here would wait forever. Await it after the "
					+ "transaction commits (outside the @Transactional method, or in an afterCommit callback).");
		}
		return this.awaiter.whenFinished(id);
	}

	/**
	 * Cancels a job: a {@code QUEUED} job is {@code CANCELLED} at once; for a {@code RUNNING}
	 * one the cancel is asked for, and the instance that holds it stops it (at once on this
	 * instance and through PostgreSQL's notifications, else at its next heartbeat): its handler
	 * is interrupted and sees {@link JobContext#isCancellationRequested()}, and the job ends
	 * {@code CANCELLED}, never retried — unless it finishes first. Returns false when the job
	 * is neither queued nor running (finished, or no such job).
	 */
	public boolean cancel(long id) {
		for (int tries = 0; tries < 3; tries++) {
			if (this.store.cancel(id)) {
				this.store.find(id).ifPresent((job) -> afterCommit(() -> {
					this.listener.cancelled(job.queue(), job.handler());
					this.awaiter.finished(Set.of(id));
				}));
				return true;
			}
			if (this.store.requestCancel(id)) {
				afterCommit(() -> this.cancelListeners.forEach((listener) -> listener.accept(Set.of(id))));
				return true;
			}
			// Neither queued nor running: finished or missing, or it moved between the two writes.
			JobStatus status = this.store.find(id).map(JobRecord::status).orElse(JobStatus.SUCCEEDED);
			if (status.isFinished()) {
				return false;
			}
		}
		return false;
	}

	/** Called with the ids of running jobs whose cancel was asked for here, after the request commits. */
	public void addCancelListener(Consumer<Set<Long>> listener) {
		this.cancelListeners.add(listener);
	}

	public void removeCancelListener(Consumer<Set<Long>> listener) {
		this.cancelListeners.remove(listener);
	}

	/**
	 * Notes ids enqueued inside a Spring transaction until it completes, so that awaiting one
	 * of them there fails at once instead of waiting forever. The note follows the
	 * transaction: set aside while an inner {@code REQUIRES_NEW} one runs.
	 */
	private void rememberUncommitted(List<Long> ids) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return;
		}
		@SuppressWarnings("unchecked")
		Set<Long> noted = (Set<Long>) TransactionSynchronizationManager.getResource(this.uncommitted);
		if (noted == null) {
			Set<Long> fresh = new HashSet<>();
			noted = fresh;
			TransactionSynchronizationManager.bindResource(this.uncommitted, fresh);
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void suspend() {
					TransactionSynchronizationManager.unbindResourceIfPossible(JobQueue.this.uncommitted);
				}

				@Override
				public void resume() {
					TransactionSynchronizationManager.bindResource(JobQueue.this.uncommitted, fresh);
				}

				@Override
				public void afterCompletion(int status) {
					TransactionSynchronizationManager.unbindResourceIfPossible(JobQueue.this.uncommitted);
				}
			});
		}
		noted.addAll(ids);
	}

	private boolean enqueuedInCurrentTransaction(long id) {
		Object noted = TransactionSynchronizationManager.getResource(this.uncommitted);
		return noted instanceof Set<?> ids && ids.contains(id);
	}

	/** Queues a {@code FAILED} job again with a fresh set of attempts; returns false when it is not failed. */
	public boolean retry(long id) {
		boolean retried = this.store.retryFailed(id);
		if (retried) {
			this.store.find(id).ifPresent((job) -> afterCommit(
					() -> this.enqueueListeners.forEach((listener) -> listener.accept(Set.of(job.queue())))));
		}
		return retried;
	}

	/** Called with the queues that got new jobs, after the enqueue commits (used to wake workers up). */
	public void addEnqueueListener(Consumer<Set<String>> listener) {
		this.enqueueListeners.add(listener);
	}

	public void removeEnqueueListener(Consumer<Set<String>> listener) {
		this.enqueueListeners.remove(listener);
	}

	private static void afterCommit(Runnable action) {
		AfterCommit.run(action);
	}

}
