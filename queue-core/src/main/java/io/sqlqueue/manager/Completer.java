package io.sqlqueue.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.store.Completion;
import io.sqlqueue.store.JobStore;
import io.sqlqueue.store.Lease;

/**
 * Records successful attempts together: one fenced statement per job, all sent in one round
 * trip and one commit, when {@code batchSize} wait or {@code linger} has passed since the
 * first. The worker does not wait for it.
 * <p>
 * A write that fails while the database is away (failover, lost connection) is tried again
 * three times within about eight seconds; a try that then finds a lease gone asks the row
 * whether the first write had landed after all (its answer lost), and counts a lost lease
 * only when it had not. A batch the database refuses for its data (a result it cannot
 * store) is recorded job by job, so one bad row holds up no other; a job whose success the
 * database refuses with its result is recorded as succeeded without it, with the reason in
 * {@code last_error}. A crash before the write lands loses only the record: the job is
 * still {@code RUNNING}, and runs again once its lease expires (at-least-once, as for any
 * crash).
 * <p>
 * At most {@code batchSize} successes wait to be recorded at once, in the buffer or in writes
 * under way (and their further tries): a worker that ends one more waits until there is room.
 * That bounds what a freeze past the lease can run again besides the jobs that were running
 * (README, Guarantees 1): a finished job whose success is not yet recorded has no heartbeat.
 */
final class Completer {

	private static final Logger logger = LoggerFactory.getLogger(Completer.class);

	private final JobStore store;

	private final TaskScheduler scheduler;

	private final Duration linger;

	private final int batchSize;

	private final OutcomeRecorder recorder;

	private final Runnable recorded;

	private final Object lock = new Object();

	/** Room for successes waiting to be recorded: taken by {@link #add}, given back when a write ends. */
	private final Semaphore room;

	/**
	 * Held (shared) from taking a batch until it is written, so that {@link #flushAndWait()}
	 * can wait for every write under way.
	 */
	private final ReadWriteLock writes = new ReentrantReadWriteLock();

	/** Writes waiting for another try; {@link #flushAndWait()} waits for them too. */
	private int retriesPending;

	private List<Pending> batch = new ArrayList<>();

	private @Nullable ScheduledFuture<?> scheduledFlush;

	/**
	 * @param recorded told after finished jobs were recorded (their rows no longer count as
	 * running, which a queue's limit on running jobs waits for)
	 */
	Completer(JobStore store, TaskScheduler scheduler, Duration linger, int batchSize, OutcomeRecorder recorder,
			Runnable recorded) {
		this.store = store;
		this.scheduler = scheduler;
		this.linger = linger;
		this.batchSize = batchSize;
		this.recorder = recorder;
		this.recorded = recorded;
		this.room = new Semaphore(batchSize);
	}

	void add(Attempt attempt, Completion completion) {
		this.room.acquireUninterruptibly();
		// A write counts as under way from the moment its batch is taken (see flushAndWait).
		this.writes.readLock().lock();
		try {
			List<Pending> full = null;
			synchronized (this.lock) {
				this.batch.add(new Pending(attempt, completion));
				if (this.batch.size() >= this.batchSize || this.linger.isZero()) {
					full = takeBatch();
				}
				else if (this.batch.size() == 1) {
					this.scheduledFlush = this.scheduler.schedule(this::flush, Instant.now().plus(this.linger));
				}
			}
			if (full != null) {
				write(full, 0);
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
			write(pending, 0);
		}
		finally {
			this.writes.readLock().unlock();
		}
	}

	/**
	 * Records what waits now, and returns only when every write under way has ended,
	 * including the further tries of writes that failed (at shutdown).
	 */
	void flushAndWait() {
		flush();
		this.writes.writeLock().lock();
		this.writes.writeLock().unlock();
		synchronized (this.lock) {
			while (this.retriesPending > 0) {
				try {
					this.lock.wait();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					logger.warn("Stopped waiting for {} completion writes to be tried again", this.retriesPending);
					return;
				}
			}
		}
	}

	private List<Pending> takeBatch() {
		List<Pending> taken = this.batch;
		// In job id order, as heartbeats extend leases, so the two never lock rows in opposite orders.
		taken.sort(Comparator.comparingLong((pending) -> pending.completion().lease().jobId()));
		this.batch = new ArrayList<>();
		if (this.scheduledFlush != null) {
			this.scheduledFlush.cancel(false);
			this.scheduledFlush = null;
		}
		return taken;
	}

	private void write(List<Pending> pending, int failures) {
		if (pending.isEmpty()) {
			return;
		}
		boolean[] held;
		try {
			held = this.store.complete(pending.stream().map(Pending::completion).toList());
		}
		catch (RuntimeException ex) {
			if (DatabaseErrors.isTransient(ex)) {
				tryAgainLater(pending, failures, ex);
			}
			else {
				isolate(pending, failures, ex);
			}
			return;
		}
		report(pending, held, failures);
	}

	private void report(List<Pending> pending, boolean[] held, int failures) {
		List<Lease> missed = new ArrayList<>();
		for (int i = 0; i < held.length; i++) {
			if (!held[i]) {
				missed.add(pending.get(i).completion().lease());
			}
		}
		Set<Lease> landed = (failures > 0 && !missed.isEmpty()) ? landedEarlier(missed) : Set.of();
		try {
			for (int i = 0; i < held.length; i++) {
				Pending one = pending.get(i);
				this.recorder.completed(one.attempt(), held[i] || landed.contains(one.completion().lease()));
			}
		}
		finally {
			this.room.release(pending.size());
		}
		this.recorded.run();
	}

	/** The leases whose job an earlier try recorded, though its answer was lost. */
	private Set<Lease> landedEarlier(List<Lease> missed) {
		try {
			return this.store.finishedUnder(missed);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not look up whether {} finished jobs were recorded", missed.size(), ex);
			return Set.of();
		}
	}

	/** The database refused the batch for its data: record each job on its own. */
	private void isolate(List<Pending> pending, int failures, RuntimeException ex) {
		if (pending.size() > 1) {
			logger.warn("Could not record {} finished jobs together; recording them one by one", pending.size(), ex);
			pending.forEach((one) -> write(List.of(one), failures));
			return;
		}
		Pending one = pending.get(0);
		if (one.completion().result() == null) {
			tryAgainLater(pending, failures, ex);
			return;
		}
		logger.warn("The database refused the result of {}; recording its success without it", one.attempt(), ex);
		String note = ErrorText.of("Result not stored: the database refused it: "
				+ NestedExceptionUtils.getMostSpecificCause(ex).getMessage());
		write(List.of(new Pending(one.attempt(), new Completion(one.completion().lease(), null, note))), failures);
	}

	private void tryAgainLater(List<Pending> pending, int failures, RuntimeException ex) {
		if (failures >= DatabaseErrors.RETRY_WAITS.length) {
			logger.error("Could not record {} finished jobs; they run again after their leases expire",
					pending.size(), ex);
			this.room.release(pending.size());
			return;
		}
		Duration wait = DatabaseErrors.RETRY_WAITS[failures];
		logger.warn("Could not record {} finished jobs; trying again in {}", pending.size(), wait, ex);
		synchronized (this.lock) {
			this.retriesPending++;
		}
		try {
			this.scheduler.schedule(() -> {
				try {
					write(pending, failures + 1);
				}
				finally {
					retryEnded();
				}
			}, Instant.now().plus(wait));
		}
		catch (RuntimeException rejected) {
			retryEnded();
			this.room.release(pending.size());
			logger.error("Could not schedule another try to record {} finished jobs; they run again after their "
					+ "leases expire", pending.size(), rejected);
		}
	}

	private void retryEnded() {
		synchronized (this.lock) {
			this.retriesPending--;
			this.lock.notifyAll();
		}
	}

	private record Pending(Attempt attempt, Completion completion) {
	}

}
