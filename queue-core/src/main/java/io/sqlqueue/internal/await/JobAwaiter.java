package io.sqlqueue.internal.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sqlqueue.ExpiredJob;
import io.sqlqueue.JobListener;
import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobResult;
import io.sqlqueue.NoSuchJobException;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.ReapedJob;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.QueueEvents;

/**
 * Completes the futures of those who await jobs on this instance. Where finishing jobs are
 * announced, the job is first marked as awaited ({@link JobStore#markAwaited}), so that
 * its completion flush announces it. One query serves every
 * waiter of the instance: it reads the awaited jobs together, at once when a job is awaited
 * or when one is heard to finish — on this instance (as a {@link JobListener} of the
 * Manager), or on any other through PostgreSQL's {@code NOTIFY} (as {@link QueueEvents}) —
 * and otherwise at intervals that double from the shortest ({@link #MIN_POLL_INTERVAL} by
 * default) up to the longest, so a job finished by another instance without notifications is seen
 * within that interval. Nothing is read while nobody waits.
 */
public class JobAwaiter implements JobListener, QueueEvents, AutoCloseable {

	/** The first wait between reads after something changed. */
	public static final Duration MIN_POLL_INTERVAL = Duration.ofMillis(20);

	/** The default longest wait between reads ({@code sqlqueue.await.max-poll-interval}). */
	public static final Duration DEFAULT_MAX_POLL_INTERVAL = Duration.ofSeconds(1);

	/** The most ids one read asks for. */
	static final int READ_BATCH = 500;

	private static final Logger logger = LoggerFactory.getLogger(JobAwaiter.class);

	private final JobStore store;

	private final PayloadCodec codec;

	private final long minPollMillis;

	private final long maxPollMillis;

	private final Map<Long, Set<CompletableFuture<JobResult>>> waiting = new ConcurrentHashMap<>();

	private final ScheduledThreadPoolExecutor executor;

	private final Object lock = new Object();

	private @Nullable ScheduledFuture<?> nextRead;

	private long nextReadAtNanos;

	private long intervalMillis;

	public JobAwaiter(JobStore store, PayloadCodec codec) {
		this(store, codec, DEFAULT_MAX_POLL_INTERVAL);
	}

	public JobAwaiter(JobStore store, PayloadCodec codec, Duration maxPollInterval) {
		this(store, codec, MIN_POLL_INTERVAL, maxPollInterval);
	}

	/**
	 * @param minPollInterval the first wait between reads after something changed
	 * @param maxPollInterval the longest wait between reads, which the waits double up to
	 */
	public JobAwaiter(JobStore store, PayloadCodec codec, Duration minPollInterval, Duration maxPollInterval) {
		this.store = store;
		this.codec = codec;
		this.minPollMillis = Math.max(1, minPollInterval.toMillis());
		this.maxPollMillis = Math.max(this.minPollMillis, maxPollInterval.toMillis());
		this.intervalMillis = this.minPollMillis;
		this.executor = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "sqlqueue-await");
			thread.setDaemon(true);
			return thread;
		});
		this.executor.setRemoveOnCancelPolicy(true);
	}

	/**
	 * A future completed when the job reaches a final state, or exceptionally with
	 * {@link NoSuchJobException} when there is no such job. Cancelling it (or letting an
	 * {@code orTimeout} end it) stops the waiting; the job is unchanged.
	 */
	public CompletableFuture<JobResult> whenFinished(long jobId) {
		try {
			this.store.markAwaited(jobId);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not mark job {} as awaited; its end is seen by reading it at intervals", jobId, ex);
		}
		CompletableFuture<JobResult> future = new CompletableFuture<>();
		// Atomic with the removal of a finished job's waiters: a future never joins a set already taken.
		this.waiting.compute(jobId, (id, futures) -> {
			Set<CompletableFuture<JobResult>> joined = (futures != null) ? futures : ConcurrentHashMap.newKeySet();
			joined.add(future);
			return joined;
		});
		future.whenComplete((result, failure) -> forget(jobId, future));
		readSoon();
		return future;
	}

	/** How many jobs are awaited on this instance now. */
	public int awaitedJobs() {
		return this.waiting.size();
	}

	private void forget(long jobId, CompletableFuture<JobResult> future) {
		this.waiting.computeIfPresent(jobId, (id, futures) -> {
			futures.remove(future);
			return futures.isEmpty() ? null : futures;
		});
	}

	@Override
	public void finished(Set<Long> jobIds) {
		for (long id : jobIds) {
			if (this.waiting.containsKey(id)) {
				readSoon();
				return;
			}
		}
	}

	@Override
	public void finished(JobRecord job, JobOutcome outcome, Duration took) {
		// Heard for every attempt on the hot path: no allocation unless someone awaits the job.
		// A retried or parked job is queued again, not finished.
		if (outcome != JobOutcome.RETRIED && outcome != JobOutcome.PARKED && outcome != JobOutcome.STOPPED
				&& this.waiting.containsKey(job.id())) {
			readSoon();
		}
	}

	@Override
	public void reaped(ReapedJob job) {
		if (job.status().isFinished()) {
			finished(Set.of(job.id()));
		}
	}

	@Override
	public void expired(ExpiredJob job) {
		finished(Set.of(job.id()));
	}

	/** Reads at once, and from then on at growing intervals again. */
	private void readSoon() {
		synchronized (this.lock) {
			this.intervalMillis = this.minPollMillis;
			schedule(0);
		}
	}

	/** Schedules a read {@code millis} from now, unless one is due sooner already. */
	private void schedule(long millis) {
		long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
		if (this.nextRead != null) {
			if (this.nextReadAtNanos - at <= 0) {
				return;
			}
			this.nextRead.cancel(false);
		}
		if (this.executor.isShutdown()) {
			return;
		}
		this.nextReadAtNanos = at;
		this.nextRead = this.executor.schedule(this::read, millis, TimeUnit.MILLISECONDS);
	}

	private void read() {
		synchronized (this.lock) {
			this.nextRead = null;
		}
		List<Long> ids = new ArrayList<>(this.waiting.keySet());
		try {
			for (int from = 0; from < ids.size(); from += READ_BATCH) {
				List<Long> batch = ids.subList(from, Math.min(ids.size(), from + READ_BATCH));
				Set<Long> found = new HashSet<>();
				for (JobRecord job : this.store.findAll(batch)) {
					found.add(job.id());
					if (job.status().isFinished()) {
						complete(job.id(), new JobResult(job, this.codec), null);
					}
				}
				for (long id : batch) {
					if (!found.contains(id)) {
						complete(id, null, new NoSuchJobException(id));
					}
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue could not read {} awaited jobs; trying again", ids.size(), ex);
		}
		synchronized (this.lock) {
			if (!this.waiting.isEmpty()) {
				this.intervalMillis = Math.min(this.maxPollMillis, this.intervalMillis * 2);
				schedule(this.intervalMillis);
			}
		}
	}

	private void complete(long jobId, @Nullable JobResult result, @Nullable RuntimeException failure) {
		Set<CompletableFuture<JobResult>> futures = this.waiting.remove(jobId);
		if (futures == null) {
			return;
		}
		for (CompletableFuture<JobResult> future : futures) {
			if (failure != null) {
				future.completeExceptionally(failure);
			}
			else {
				future.complete(result);
			}
		}
	}

	/** Stops reading; futures not completed yet stay so. */
	@Override
	public void close() {
		this.executor.shutdownNow();
	}

}
