package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.HandlerRegistry;
import io.sqlqueue.handler.PayloadCodec;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.store.JobStore;
import io.sqlqueue.store.NewJob;

/**
 * What an application uses to put work in the queue and to look at it. An enqueue joins
 * the caller's Spring transaction when there is one, so the job exists only if the
 * caller's work commits (the transactional outbox); without one it commits at once.
 * <p>
 * A job whose handler this application has takes that handler's queue and maximum of
 * attempts unless the {@link Job} says otherwise; for any other handler, name the queue
 * that the handling application serves.
 */
public class JobQueue {

	/** The queue of jobs that name none and whose handler is unknown here. */
	public static final String DEFAULT_QUEUE = "default";

	private final JobStore store;

	private final PayloadCodec codec;

	private final HandlerRegistry handlers;

	private final RetryPolicy retryPolicy;

	private final JobListener listener;

	private final List<Consumer<Set<String>>> enqueueListeners = new CopyOnWriteArrayList<>();

	public JobQueue(JobStore store, PayloadCodec codec, HandlerRegistry handlers, RetryPolicy retryPolicy) {
		this(store, codec, handlers, retryPolicy, JobListener.NONE);
	}

	public JobQueue(JobStore store, PayloadCodec codec, HandlerRegistry handlers, RetryPolicy retryPolicy,
			JobListener listener) {
		this.store = store;
		this.codec = codec;
		this.handlers = handlers;
		this.retryPolicy = retryPolicy;
		this.listener = JobListener.guarded(listener);
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
		return insert(jobs.stream().map(this::toRow).toList());
	}

	/**
	 * Enqueues the job a schedule fires for {@code tick}, in the caller's transaction (the
	 * one that moves the schedule on); the handler sees the tick as
	 * {@link JobContext#scheduledFor()}.
	 */
	public long enqueueForTick(Job job, Instant tick) {
		return insert(List.of(toRow(job).forTick(tick))).get(0);
	}

	/** Inserts the rows, and tells the listeners and wakes the Managers once they commit. */
	private List<Long> insert(List<NewJob> rows) {
		Map<List<String>, Integer> counts = new LinkedHashMap<>();
		rows.forEach((row) -> counts.merge(List.of(row.queue(), row.handler()), 1, Integer::sum));
		List<Long> ids = this.store.insert(rows);
		afterCommit(() -> {
			counts.forEach((key, count) -> this.listener.enqueued(key.get(0), key.get(1), count));
			Set<String> queues = new LinkedHashSet<>();
			counts.keySet().forEach((key) -> queues.add(key.get(0)));
			this.enqueueListeners.forEach((listener) -> listener.accept(queues));
		});
		return ids;
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
		return new NewJob(queue, handler, payload, job.priority(),
				job.runAt(), delay.toMillis(), (maxAttempts != null) ? maxAttempts : this.retryPolicy.maxAttempts(),
				job.uniqueKey(), job.groupKey());
	}

	/** The job with this id, as stored now. */
	public Optional<JobRecord> find(long id) {
		return this.store.find(id);
	}

	/** Cancels a {@code QUEUED} job; returns false when it is not (or no longer) queued. */
	public boolean cancel(long id) {
		boolean cancelled = this.store.cancel(id);
		if (cancelled) {
			this.store.find(id)
				.ifPresent((job) -> afterCommit(() -> this.listener.cancelled(job.queue(), job.handler())));
		}
		return cancelled;
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
		if (TransactionSynchronizationManager.isSynchronizationActive()) {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void afterCommit() {
					action.run();
				}
			});
		}
		else {
			action.run();
		}
	}

}
