package io.sqlqueue.internal.manager;

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

import io.sqlqueue.internal.store.CompletedJobs;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;

/**
 * Records successful attempts together: one fenced statement per job, all sent in one round
 * trip and one commit, when {@code batchSize} wait or {@code linger} has passed since the
 * first. The worker does not wait for it.
 * <p>
 * A write that fails while the database is away (failover, lost connection) is tried again,
 * with growing waits ({@link DatabaseErrors#retryWait}), for each success as long as its lease
 * surely holds: a failover that an HA tool takes most of a minute over loses no recorded
 * success while the leases outlast it. A try that then finds a lease gone asks the row
 * whether the first write had landed after all (its answer lost), and counts a lost lease
 * only when it had not. A batch the database refuses for its data (a result it cannot
 * store) is recorded job by job, so one bad row holds up no other; a job whose success the
 * database refuses with its result is recorded as succeeded without it, with the reason in
 * {@code last_error}. A crash before the write lands loses only the record: the job is
 * still {@code RUNNING}, and runs again once its lease expires (at-least-once, as for any
 * crash).
 * <p>
 * At most twice {@code batchSize} successes wait to be recorded at once, in the buffer or in
 * writes under way (and their further tries): a worker that ends one more waits until there is
 * room. That bounds what a freeze past the lease can run again besides the jobs that were
 * running (docs/guarantees.md, promise 1): a finished job whose success is not yet recorded has
 * no heartbeat. Twice, so that the next batch fills while one is written: with room for one
 * batch only, every worker waited for each write to end (in a drain of no-op jobs, most of
 * the workers' time).
 * <p>
 * A success whose row another transaction holds (a caller's open transaction that enqueued a
 * job to run after it, or cancels it), or whose settling needs a row it holds past
 * {@link JobStore#OWN_LOCK_WAIT}, is passed over by the write ({@link JobStore#completeUnlessHeld})
 * and written again on its own after {@link #HELD_WAITS} (100 ms, growing to a second), until
 * it lands or its lease turns out lost: never dropped, never counted as a failed try or a
 * lost lease. It gives its room back when it is passed over, so that a transaction left open
 * holds back no worker; the reaper cannot take its job meanwhile either, as it passes over
 * the same held row. Stopping waits for such successes up to the shutdown timeout, then
 * leaves them: their jobs stay {@code RUNNING} and run again once their leases expire
 * (at-least-once).
 */
final class Completer {

	private static final Logger logger = LoggerFactory.getLogger(Completer.class);

	/**
	 * Waits before each new write of a success passed over (its row held by another
	 * transaction), the last repeated: soon at first, as most such transactions are short,
	 * then at most a statement a second for one left open.
	 */
	static final Duration[] HELD_WAITS = { Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(400),
			Duration.ofMillis(800), Duration.ofSeconds(1) };

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
	 * Held (shared) from taking a batch until it is written, so that {@link #flushAndWait}
	 * can wait for every write under way.
	 */
	private final ReadWriteLock writes = new ReentrantReadWriteLock();

	/** Writes waiting for another try; {@link #flushAndWait} waits for them too. */
	private int retriesPending;

	/** Successes passed over, waiting to be written again; {@link #flushAndWait} waits for them up to its bound. */
	private int heldPending;

	/** Changed when a stop gives up on the successes passed over: their writes then drop them. */
	private int heldGeneration;

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
		this.room = new Semaphore(2 * batchSize);
	}

	void add(Attempt attempt, Completion completion) {
		this.room.acquireUninterruptibly();
		// A write counts as under way from the moment its batch is taken (see flushAndWait).
		this.writes.readLock().lock();
		try {
			List<Pending> full = null;
			synchronized (this.lock) {
				this.batch.add(new Pending(attempt, completion, 0));
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
	 * including the further tries of writes that failed and the successes passed over
	 * because another transaction held their rows, for at most {@code bound}. Past it, a stop
	 * during an outage or behind a held row does not wait for the leases: what is still not
	 * recorded is left (the tries go on while the scheduler runs; if none lands, those jobs
	 * run again after their leases expire).
	 */
	void flushAndWait(Duration bound) {
		flush();
		this.writes.writeLock().lock();
		this.writes.writeLock().unlock();
		long deadline = System.nanoTime() + bound.toNanos();
		boolean waitForHeld = true;
		synchronized (this.lock) {
			while (this.retriesPending > 0 || (waitForHeld && this.heldPending > 0)) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					if (this.retriesPending > 0) {
						logger.warn("Stopped waiting after {} for {} writes of finished jobs that the database "
								+ "refused; they are tried again while this instance's scheduler runs, else their "
								+ "jobs run again after their leases expire", bound, this.retriesPending);
						return;
					}
					logger.warn("{} finished jobs are still not recorded after {}: another transaction holds their "
							+ "rows. They stay RUNNING and run again after their leases expire", this.heldPending,
							bound);
					this.heldGeneration++;
					waitForHeld = false;
					continue;
				}
				try {
					this.lock.wait(Math.max(1, left / 1_000_000));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					logger.warn("Stopped waiting for {} completion writes to be tried again", this.retriesPending
							+ this.heldPending);
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
		CompletedJobs done;
		try {
			done = this.store.completeUnlessHeld(pending.stream().map(Pending::completion).toList());
		}
		catch (RuntimeException ex) {
			if (DatabaseErrors.isTransient(ex)) {
				this.recorder.doubt().databaseAway();
				tryAgainLater(pending, failures, ex);
			}
			else {
				isolate(pending, failures, ex);
			}
			return;
		}
		report(pending, done, failures);
	}

	private void report(List<Pending> pending, CompletedJobs done, int failures) {
		if (failures > 0) {
			logger.info("Recorded {} finished jobs after {} failed tries", pending.size(), failures);
		}
		List<Pending> ended = new ArrayList<>();
		List<Pending> passedOver = new ArrayList<>();
		for (Pending one : pending) {
			(done.passedOver().contains(one.completion().lease()) ? passedOver : ended).add(one);
		}
		List<Lease> missed = ended.stream()
			.map((one) -> one.completion().lease())
			.filter((lease) -> !done.recorded().contains(lease))
			.toList();
		Set<Lease> landed = (failures > 0 && !missed.isEmpty()) ? landedEarlier(missed) : Set.of();
		try {
			for (Pending one : ended) {
				Lease lease = one.completion().lease();
				this.recorder.completed(one.attempt(), done.recorded().contains(lease) || landed.contains(lease));
			}
		}
		finally {
			releaseRoom(pending);
			writeLater(passedOver);
		}
		if (!ended.isEmpty()) {
			this.recorded.run();
		}
	}

	/**
	 * Writes again, on its own and after a wait, what a write passed over because another
	 * transaction held its row; logged when first passed over, not at every try.
	 */
	private void writeLater(List<Pending> passedOver) {
		if (passedOver.isEmpty()) {
			return;
		}
		int passes = passedOver.stream().mapToInt(Pending::passes).max().orElse(0);
		if (passedOver.stream().anyMatch((one) -> one.passes() == 0)) {
			logger.info("{} finished jobs are recorded later: another transaction holds their rows (such as a "
					+ "caller's open transaction that enqueued a job after them); the others are recorded meanwhile",
					passedOver.size());
		}
		Duration wait = HELD_WAITS[Math.min(passes, HELD_WAITS.length - 1)];
		List<Pending> again = passedOver.stream()
			.map((one) -> new Pending(one.attempt(), one.completion(), one.passes() + 1))
			.toList();
		int generation;
		synchronized (this.lock) {
			this.heldPending += again.size();
			generation = this.heldGeneration;
		}
		try {
			this.scheduler.schedule(() -> {
				try {
					if (isCurrent(generation)) {
						write(again, 0);
					}
				}
				finally {
					heldEnded(again.size());
				}
			}, Instant.now().plus(wait));
		}
		catch (RuntimeException rejected) {
			heldEnded(again.size());
			logger.warn("Could not schedule another write of {} finished jobs whose rows another transaction holds; "
					+ "they run again after their leases expire", again.size(), rejected);
		}
	}

	private boolean isCurrent(int generation) {
		synchronized (this.lock) {
			return generation == this.heldGeneration;
		}
	}

	private void heldEnded(int count) {
		synchronized (this.lock) {
			this.heldPending -= count;
			this.lock.notifyAll();
		}
	}

	/** Gives back the room these successes take: those passed over before took none since. */
	private void releaseRoom(List<Pending> pending) {
		this.room.release((int) pending.stream().filter((one) -> one.passes() == 0).count());
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
		write(List.of(new Pending(one.attempt(), new Completion(one.completion().lease(), null, note), one.passes())),
				failures);
	}

	/**
	 * Writes the batch again after a wait, but only the successes whose leases surely hold
	 * until then; the others are given up (they run again after their leases expire).
	 */
	private void tryAgainLater(List<Pending> pending, int failures, RuntimeException ex) {
		Duration wait = DatabaseErrors.retryWait(failures);
		List<Pending> again = new ArrayList<>();
		List<Pending> givenUp = new ArrayList<>();
		for (Pending one : pending) {
			(DatabaseErrors.worthTryingAgain(one.attempt(), wait) ? again : givenUp).add(one);
		}
		if (!givenUp.isEmpty()) {
			logger.error("Could not record {} finished jobs ({} tries) before their leases could run out; they run "
					+ "again after their leases expire", givenUp.size(), failures + 1, ex);
			releaseRoom(givenUp);
		}
		if (again.isEmpty()) {
			return;
		}
		// Once per outage with its cause; the further tries while it lasts only at DEBUG.
		if (failures == 0) {
			logger.warn("Could not record {} finished jobs; trying again while their leases hold: {}", again.size(),
					ex.toString());
		}
		else {
			logger.debug("Could not record {} finished jobs (try {}); trying again in {}", again.size(), failures + 1,
					wait, ex);
		}
		synchronized (this.lock) {
			this.retriesPending++;
		}
		try {
			this.scheduler.schedule(() -> {
				try {
					write(again, failures + 1);
				}
				finally {
					retryEnded();
				}
			}, Instant.now().plus(wait));
		}
		catch (RuntimeException rejected) {
			retryEnded();
			releaseRoom(again);
			logger.error("Could not schedule another try to record {} finished jobs; they run again after their "
					+ "leases expire", again.size(), rejected);
		}
	}

	private void retryEnded() {
		synchronized (this.lock) {
			this.retriesPending--;
			this.lock.notifyAll();
		}
	}

	/** @param passes how many writes passed it over because another transaction held its row */
	private record Pending(Attempt attempt, Completion completion, int passes) {
	}

}
