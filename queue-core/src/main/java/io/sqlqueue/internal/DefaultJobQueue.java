package io.sqlqueue.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
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

import io.sqlqueue.AwaitTimeoutException;
import io.sqlqueue.Batch;
import io.sqlqueue.BatchIds;
import io.sqlqueue.BatchProgress;
import io.sqlqueue.DependencyFailure;
import io.sqlqueue.InvalidJobException;
import io.sqlqueue.Job;
import io.sqlqueue.JobLinks;
import io.sqlqueue.JobListener;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobResult;
import io.sqlqueue.JobSignal;
import io.sqlqueue.JobStatus;
import io.sqlqueue.JobStep;
import io.sqlqueue.Names;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.Workflow;
import io.sqlqueue.WorkflowGraph;
import io.sqlqueue.WorkflowIds;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.internal.await.JobAwaiter;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.handler.UnknownHandlers;
import io.sqlqueue.internal.store.AfterCommit;
import io.sqlqueue.internal.store.CancelledJob;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.LinkedIds;
import io.sqlqueue.internal.store.LinkedJobs;
import io.sqlqueue.internal.store.NewJob;
import io.sqlqueue.observation.JobObservations;

/**
 * The {@link JobQueue} the starter builds.
 */
public class DefaultJobQueue implements JobQueue {

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

	public DefaultJobQueue(JobStore store, PayloadCodec codec, HandlerRegistry handlers, RetryPolicy retryPolicy) {
		this(store, codec, handlers, retryPolicy, JobListener.NONE);
	}

	public DefaultJobQueue(JobStore store, PayloadCodec codec, HandlerRegistry handlers, RetryPolicy retryPolicy,
			JobListener listener) {
		this(store, codec, handlers, retryPolicy, listener, new JobAwaiter(store, codec));
	}

	/**
	 * @param awaiter what completes {@link #await} and {@link #whenFinished}: the Manager's
	 * listener and the notifications should tell it of finished jobs, or it only polls
	 */
	public DefaultJobQueue(JobStore store, PayloadCodec codec, HandlerRegistry handlers, RetryPolicy retryPolicy,
			JobListener listener, JobAwaiter awaiter) {
		this(store, codec, handlers, retryPolicy, listener, awaiter, JobObservations.NONE);
	}

	/**
	 * @param observations what observes each enqueue and gives the propagation context (a
	 * trace) to store with its job; {@link JobObservations#NONE} stores none
	 */
	public DefaultJobQueue(JobStore store, PayloadCodec codec, HandlerRegistry handlers, RetryPolicy retryPolicy,
			JobListener listener, JobAwaiter awaiter, JobObservations observations) {
		this(store, codec, handlers, retryPolicy, listener, awaiter, observations, new UnknownHandlers(handlers));
	}

	/**
	 * @param unknownHandlers what an enqueue for a handler this application lacks does; by
	 * default it warns once per name
	 */
	public DefaultJobQueue(JobStore store, PayloadCodec codec, HandlerRegistry handlers, RetryPolicy retryPolicy,
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

	@Override
	public int defaultMaxAttempts() {
		return this.retryPolicy.maxAttempts();
	}

	@Override
	public long enqueue(String handler, @Nullable Object payload) {
		return enqueue(Job.of(handler, payload));
	}

	@Override
	public long enqueue(Job job) {
		return enqueueAll(List.of(job)).get(0);
	}

	@Override
	public List<Long> enqueueAll(List<Job> jobs) {
		if (jobs.stream().allMatch(DefaultJobQueue::isPlain)) {
			return insert(jobs.stream().map(this::checkedRow).toList(), this.store::insert);
		}
		List<List<Integer>> within = jobs.stream().map((job) -> List.<Integer>of()).toList();
		return insertLinked(jobs, within, false, -1).jobIds();
	}

	@Override
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

	@Override
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

	@Override
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
				job.concurrencyKey(), job.tags(), job.meta());
	}

	@Override
	public Optional<String> unknownHandlerNotice(String handler) {
		return this.unknownHandlers.notice(handler);
	}

	@Override
	public Optional<JobRecord> find(long id) {
		return this.store.find(id);
	}

	@Override
	public Optional<JobLinks> links(long id) {
		return this.store.workflows().links(id);
	}

	@Override
	public Optional<WorkflowGraph> graph(long id) {
		return this.store.workflows().graph(id);
	}

	@Override
	public Optional<BatchProgress> batch(long batchId) {
		return this.store.workflows().batch(batchId);
	}

	@Override
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

	@Override
	public CompletableFuture<JobResult> whenFinished(long id) {
		if (enqueuedInCurrentTransaction(id)) {
			throw new IllegalStateException("Job " + id + " was enqueued in the current transaction, which has not "
					+ "committed: no worker can see it, so awaiting it here would wait forever. Await it after the "
					+ "transaction commits (outside the @Transactional method, or in an afterCommit callback).");
		}
		return this.awaiter.whenFinished(id);
	}

	@Override
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

	/**
	 * Cancels these jobs (at most 512) as {@link #cancel(long)} does each: the queued ones whose
	 * end settles nothing many per statement, in one short transaction that passes over rows a
	 * claim holds, then the others (running, in a workflow or a batch, or claimed meanwhile)
	 * one by one. Returns how many it cancelled or asked to stop.
	 */
	public int cancelAll(Collection<Long> ids) {
		List<CancelledJob> plain = this.store.cancelPlain(ids);
		Set<Long> cancelled = new HashSet<>();
		plain.forEach((job) -> cancelled.add(job.id()));
		if (!plain.isEmpty()) {
			afterCommit(() -> {
				plain.forEach((job) -> this.listener.cancelled(job.queue(), job.handler()));
				this.awaiter.finished(Set.copyOf(cancelled));
			});
		}
		int count = plain.size();
		for (long id : ids) {
			if (!cancelled.contains(id) && cancel(id)) {
				count++;
			}
		}
		return count;
	}

	@Override
	public void addCancelListener(Consumer<Set<Long>> listener) {
		this.cancelListeners.add(listener);
	}

	@Override
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
					TransactionSynchronizationManager.unbindResourceIfPossible(DefaultJobQueue.this.uncommitted);
				}

				@Override
				public void resume() {
					TransactionSynchronizationManager.bindResource(DefaultJobQueue.this.uncommitted, fresh);
				}

				@Override
				public void afterCompletion(int status) {
					TransactionSynchronizationManager.unbindResourceIfPossible(DefaultJobQueue.this.uncommitted);
				}
			});
		}
		noted.addAll(ids);
	}

	private boolean enqueuedInCurrentTransaction(long id) {
		Object noted = TransactionSynchronizationManager.getResource(this.uncommitted);
		return noted instanceof Set<?> ids && ids.contains(id);
	}

	@Override
	public void signal(long id, String name, @Nullable Object payload) {
		if (name == null) {
			throw new InvalidJobException("A signal needs a name");
		}
		Names.requireKey("A signal name", name);
		if (payload == null) {
			throw new InvalidJobException("Signal '" + name + "' to job " + id + " needs a payload: a waiting job "
					+ "tells a signal from its absence by it (send true, or a record)");
		}
		String json;
		try {
			json = this.codec.encodePayload(payload, name);
		}
		catch (InvalidJobException ex) {
			throw new InvalidJobException("Signal '" + name + "' to job " + id + " was not stored: " + ex.getMessage(),
					ex);
		}
		String problem = this.store.whyNotStorable(json);
		if (problem != null) {
			throw new InvalidJobException("Signal '" + name + "' to job " + id + " was not stored: " + problem);
		}
		String queue = this.store.steps().signal(id, name, json);
		afterCommit(() -> this.enqueueListeners.forEach((listener) -> listener.accept(Set.of(queue))));
	}

	@Override
	public List<JobStep> steps(long id) {
		return this.store.steps().recordsOf(id);
	}

	@Override
	public List<JobSignal> signals(long id) {
		return this.store.steps().signalsOf(id);
	}

	@Override
	public boolean retry(long id) {
		boolean retried = this.store.retryFailed(id);
		if (retried) {
			this.store.find(id).ifPresent((job) -> afterCommit(
					() -> this.enqueueListeners.forEach((listener) -> listener.accept(Set.of(job.queue())))));
		}
		return retried;
	}

	@Override
	public void addEnqueueListener(Consumer<Set<String>> listener) {
		this.enqueueListeners.add(listener);
	}

	@Override
	public void removeEnqueueListener(Consumer<Set<String>> listener) {
		this.enqueueListeners.remove(listener);
	}

	private static void afterCommit(Runnable action) {
		AfterCommit.run(action);
	}

}
