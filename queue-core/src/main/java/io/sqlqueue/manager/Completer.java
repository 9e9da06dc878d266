package io.sqlqueue.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.store.Completion;
import io.sqlqueue.store.JobStore;

/**
 * Records successful attempts together: one fenced statement per job, all sent in one round
 * trip and one commit, when {@code batchSize} wait or {@code linger} has passed since the
 * first. The worker does not wait for it. A write that fails (failover, lost connection)
 * is tried again three times within about eight seconds. A crash before the write lands
 * loses only the record: the job is still {@code RUNNING}, and runs again once its lease
 * expires (at-least-once, as for any crash).
 */
final class Completer {

	private static final Logger logger = LoggerFactory.getLogger(Completer.class);

	/** Waits before each new try of a completion write that failed. */
	private static final Duration[] RETRIES = { Duration.ofMillis(500), Duration.ofSeconds(2), Duration.ofSeconds(5) };

	private final JobStore store;

	private final TaskScheduler scheduler;

	private final Duration linger;

	private final int batchSize;

	private final OutcomeRecorder recorder;

	private final Object lock = new Object();

	/**
	 * Held (shared) from taking a batch until it is written, so that {@link #flushAndWait()}
	 * can wait for every write under way.
	 */
	private final ReadWriteLock writes = new ReentrantReadWriteLock();

	private List<Pending> batch = new ArrayList<>();

	private @Nullable ScheduledFuture<?> scheduledFlush;

	Completer(JobStore store, TaskScheduler scheduler, Duration linger, int batchSize, OutcomeRecorder recorder) {
		this.store = store;
		this.scheduler = scheduler;
		this.linger = linger;
		this.batchSize = batchSize;
		this.recorder = recorder;
	}

	void add(Attempt attempt, @Nullable String result) {
		// A write counts as under way from the moment its batch is taken (see flushAndWait).
		this.writes.readLock().lock();
		try {
			List<Pending> full = null;
			synchronized (this.lock) {
				this.batch.add(new Pending(attempt, new Completion(attempt.lease, result)));
				if (this.batch.size() >= this.batchSize || this.linger.isZero()) {
					full = takeBatch();
				}
				else if (this.batch.size() == 1) {
					this.scheduledFlush = this.scheduler.schedule(this::flush, Instant.now().plus(this.linger));
				}
			}
			if (full != null) {
				write(full);
			}
		}
		finally {
			this.writes.readLock().unlock();
		}
	}

	/** Records what waits now. */
	void flush() {
		List<Pending> pending;
		this.writes.readLock().lock();
		try {
			synchronized (this.lock) {
				pending = takeBatch();
			}
			write(pending);
		}
		finally {
			this.writes.readLock().unlock();
		}
	}

	/** Records what waits now, and returns only when every write under way has ended (at shutdown). */
	void flushAndWait() {
		flush();
		this.writes.writeLock().lock();
		this.writes.writeLock().unlock();
	}

	private List<Pending> takeBatch() {
		List<Pending> taken = this.batch;
		this.batch = new ArrayList<>();
		if (this.scheduledFlush != null) {
			this.scheduledFlush.cancel(false);
			this.scheduledFlush = null;
		}
		return taken;
	}

	private void write(List<Pending> pending) {
		write(pending, 0);
	}

	private void write(List<Pending> pending, int failures) {
		if (pending.isEmpty()) {
			return;
		}
		try {
			boolean[] held = this.store.complete(pending.stream().map(Pending::completion).toList());
			for (int i = 0; i < held.length; i++) {
				this.recorder.completed(pending.get(i).attempt(), held[i]);
			}
		}
		catch (RuntimeException ex) {
			if (failures < RETRIES.length) {
				// A failover or a dropped connection is usually over within seconds; the leases
				// (a minute by default) outlast these tries, and the write is fenced anyway.
				Duration wait = RETRIES[failures];
				logger.warn("Could not record {} finished jobs; trying again in {}", pending.size(), wait, ex);
				this.scheduler.schedule(() -> write(pending, failures + 1), Instant.now().plus(wait));
			}
			else {
				logger.error("Could not record {} finished jobs; they run again after their leases expire",
						pending.size(), ex);
			}
		}
	}

	private record Pending(Attempt attempt, Completion completion) {
	}

}
