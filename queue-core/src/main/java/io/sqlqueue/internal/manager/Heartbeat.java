package io.sqlqueue.internal.manager;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import io.sqlqueue.internal.maintenance.PeriodicTask;
import io.sqlqueue.internal.store.ExtendedLeases;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.LostRaces;

/**
 * Extends the leases of the attempts this instance holds, every heartbeat interval, and
 * finds the cancel requests of their jobs that no notification brought. Its statements
 * never wait on a row lock: they pass over rows another transaction holds (a caller's open
 * transaction that enqueued a job to run after a running one) and write those leases' new
 * expiry beside the rows instead ({@link JobStore#extendLeases}), so a lease never runs out
 * under a held row, and the beat holds one connection however many rows are held.
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
			super.start();
		}
	}

	/** Stops its beats, waits for one under way, and ends its thread. */
	@Override
	public void stop() {
		super.stop();
		awaitPass();
		this.thread.shutdown();
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
			List<Attempt> attempts = this.attempts.stream().filter(Heartbeat::holdsItsLease).toList();
			if (attempts.isEmpty()) {
				return 0;
			}
			try {
				return beat(attempts);
			}
			catch (RuntimeException ex) {
				if (LostRaces.isLostRace(ex)) {
					// Other transactions won each try (their rows, on another node of a cluster): the
					// next beat extends the leases, well within their length.
					logger.debug("sqlqueue Manager {} lost the extension of {} leases to other transactions",
							this.settings.workerId(), attempts.size(), ex);
					return 0;
				}
				if (DatabaseErrors.isTransient(ex)) {
					this.recorder.doubt().databaseAway();
				}
				logger.warn("sqlqueue Manager {} could not extend {} leases", this.settings.workerId(),
						attempts.size(), ex);
				return 0;
			}
		}
	}

	/**
	 * Whether the attempt still needs its lease: not settled (its outcome is being written under
	 * it), and not given back unstarted by a stop under way (the give-back ended the lease; a
	 * beat that meets it is no loss, and a stop during a deploy is no time for a false alarm).
	 */
	private static boolean holdsItsLease(Attempt attempt) {
		return !attempt.isSettled() && !attempt.isReleased();
	}

	private int beat(List<Attempt> attempts) {
		long sent = System.nanoTime();
		ExtendedLeases leases = this.store.extendLeases(attempts.stream().map((attempt) -> attempt.lease).toList(),
				this.settings.leaseDuration());
		List<Long> held = new ArrayList<>();
		int extended = 0;
		for (Attempt attempt : attempts) {
			if (leases.extended().contains(attempt.lease) || leases.passedOver().contains(attempt.lease)) {
				// Passed over: its row is held by another transaction, its expiry written beside it.
				attempt.leaseExtended(sent, this.settings.leaseDuration());
				held.add(attempt.job.id());
				extended++;
			}
			else if (holdsItsLease(attempt)) {
				this.recorder.leaseLost(attempt, "heartbeat");
			}
		}
		if (!leases.passedOver().isEmpty()) {
			logger.debug("sqlqueue Manager {} extended {} leases beside their rows, which another transaction holds",
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

}
