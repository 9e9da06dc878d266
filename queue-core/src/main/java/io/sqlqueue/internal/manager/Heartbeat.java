package io.sqlqueue.internal.manager;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.TransientDataAccessException;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import io.sqlqueue.internal.maintenance.PeriodicTask;
import io.sqlqueue.internal.store.ExtendedLeases;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;

/**
 * Extends the leases of the attempts this instance holds, every heartbeat interval, and
 * finds the cancel requests of their jobs that no notification brought. Its statements
 * never wait on a row lock: they pass over locked rows, whose leases are still ours, and
 * hand each to a thread that waits for the row and extends the lease as it is let go
 * ({@link #waitForRow}).
 * <p>
 * It runs on a thread of its own ({@code sqlqueue-heartbeat}), made at start and ended at
 * stop, so that no task of the shared scheduler, whose statements may wait on a caller's
 * lock, delays a beat. The writes of the cancels it finds may wait on such a lock: they run
 * on the shared scheduler. Stopping waits for a beat under way. Tests step it with
 * {@link #runOnce()}.
 */
public final class Heartbeat extends PeriodicTask {

	private static final Logger logger = LoggerFactory.getLogger(Heartbeat.class);

	private final ThreadPoolTaskScheduler thread;

	private final JobStore store;

	private final ManagerSettings settings;

	private final Collection<Attempt> attempts;

	private final OutcomeRecorder recorder;

	private final TaskScheduler shared;

	private final Consumer<Set<Long>> cancels;

	private final Object beat = new Object();

	/** The leases a {@link #waitForRow} waits to extend. */
	private final Set<Lease> waitedFor = ConcurrentHashMap.newKeySet();

	/** Threads that wait for held rows, one per passed-over lease; made at start, ended at stop. */
	private volatile @Nullable ExecutorService waiters;

	/**
	 * @param attempts the attempts this instance holds, read at each beat
	 * @param shared where the cancels found are handed on
	 * @param cancels stops the jobs of these ids, whose cancel was asked for
	 */
	Heartbeat(JobStore store, ManagerSettings settings, Collection<Attempt> attempts, OutcomeRecorder recorder,
			TaskScheduler shared, Consumer<Set<Long>> cancels) {
		this(PollLoop.ownThread("sqlqueue-heartbeat"), store, settings, attempts, recorder, shared, cancels);
	}

	private Heartbeat(ThreadPoolTaskScheduler thread, JobStore store, ManagerSettings settings,
			Collection<Attempt> attempts, OutcomeRecorder recorder, TaskScheduler shared, Consumer<Set<Long>> cancels) {
		super(thread, settings.heartbeatInterval(), "heartbeat");
		this.thread = thread;
		this.store = store;
		this.settings = settings;
		this.attempts = attempts;
		this.recorder = recorder;
		this.shared = shared;
		this.cancels = cancels;
	}

	/** Makes its thread, then schedules its beats. */
	@Override
	public synchronized void start() {
		if (!isRunning()) {
			this.thread.initialize();
			this.waiters = Executors.newCachedThreadPool((task) -> {
				Thread waiter = new Thread(task, "sqlqueue-lease-waiter");
				waiter.setDaemon(true);
				return waiter;
			});
			super.start();
		}
	}

	/** Stops its beats, waits for one under way, and ends its thread. */
	@Override
	public void stop() {
		super.stop();
		awaitPass();
		this.thread.shutdown();
		ExecutorService waiters = this.waiters;
		if (waiters != null) {
			// A waiter in a statement ends when its bounded wait does (one beat at most).
			waiters.shutdownNow();
		}
	}

	@Override
	protected void runPass() {
		runOnce();
	}

	/**
	 * One beat: extends the leases of the attempts not yet settled, counts those found lost,
	 * and hands on the cancels asked for meanwhile; returns how many leases it extended. A
	 * failure is logged, not thrown: the next beat tries again.
	 */
	public int runOnce() {
		synchronized (this.beat) {
			List<Attempt> attempts = this.attempts.stream().filter((attempt) -> !attempt.isSettled()).toList();
			if (attempts.isEmpty()) {
				return 0;
			}
			try {
				return beat(attempts);
			}
			catch (RuntimeException ex) {
				logger.warn("sqlqueue Manager {} could not extend {} leases", this.settings.workerId(),
						attempts.size(), ex);
				return 0;
			}
		}
	}

	private int beat(List<Attempt> attempts) {
		long sent = System.nanoTime();
		ExtendedLeases leases = this.store.extendLeases(attempts.stream().map((attempt) -> attempt.lease).toList(),
				this.settings.leaseDuration());
		Set<Lease> lost = new HashSet<>(leases.lost());
		List<Long> held = new ArrayList<>();
		int extended = 0;
		for (Attempt attempt : attempts) {
			if (leases.extended().contains(attempt.lease)) {
				attempt.leaseExtended(sent, this.settings.leaseDuration());
				held.add(attempt.job.id());
				extended++;
			}
			else if (!lost.contains(attempt.lease)) {
				// Its row is locked by another transaction: still ours, extended as the row is let go.
				held.add(attempt.job.id());
				waitForRow(attempt);
			}
			else if (!attempt.isSettled()) {
				this.recorder.leaseLost(attempt, "heartbeat");
			}
		}
		if (!leases.passedOver().isEmpty()) {
			logger.debug("sqlqueue Manager {} passed over {} leases whose rows another transaction holds",
					this.settings.workerId(), leases.passedOver().size());
		}
		// Where no notification brought a cancel request at once, the heartbeat finds it.
		Set<Long> cancels = this.store.cancelRequested(held);
		if (!cancels.isEmpty()) {
			// Their writes may wait on a caller's lock: not on the heartbeat's thread. (Refused while the
			// application closes: the reaper cancels them once their leases expire.)
			try {
				this.shared.schedule(() -> this.cancels.accept(cancels), Instant.now());
			}
			catch (RuntimeException ex) {
				logger.debug("Could not hand on the cancels of jobs {}", cancels, ex);
			}
		}
		return extended;
	}


	/**
	 * Extends the lease of an attempt whose row another transaction holds as soon as that
	 * transaction ends, on a thread of its own: its write waits for the row, one beat at a
	 * time, until it is extended, lost (the next beat tells) or the attempt settled. Waiting
	 * in line for the row, it gets it before a reaper, whose read passes over locked rows;
	 * were it only tried again at the next beat, a lease that ran out during a long hold
	 * (a caller's transaction that enqueued a job after this one) would be reaped at the
	 * holder's commit, and the job run again while it still runs here. Costs a thread and a
	 * connection while the row is held.
	 */
	private void waitForRow(Attempt attempt) {
		ExecutorService waiters = this.waiters;
		if (waiters == null || !this.waitedFor.add(attempt.lease)) {
			return;
		}
		try {
			waiters.execute(() -> {
				try {
					extendWhenLetGo(attempt);
				}
				finally {
					this.waitedFor.remove(attempt.lease);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			// Stopping: the lease is left to its expiry, as every lease of a stopped instance.
			this.waitedFor.remove(attempt.lease);
		}
	}

	private void extendWhenLetGo(Attempt attempt) {
		while (!attempt.isSettled() && !Thread.currentThread().isInterrupted()) {
			long sent = System.nanoTime();
			try {
				if (this.store.extendHeldLease(attempt.lease, this.settings.leaseDuration(),
						this.settings.heartbeatInterval())) {
					attempt.leaseExtended(sent, this.settings.leaseDuration());
				}
				return;
			}
			catch (TransientDataAccessException ex) {
				// Still held: wait again.
			}
			catch (RuntimeException ex) {
				logger.debug("sqlqueue Manager {} could not wait to extend the lease of job {}",
						this.settings.workerId(), attempt.job.id(), ex);
				return;
			}
		}
	}

}
