package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobOutcome;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.ExtendedLeases;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.observation.JobObservations;

/**
 * The Manager's workers: each queue is a {@link Lane} of {@code concurrency} workers that
 * may hold {@code prefetch} more claimed jobs, so a worker that finishes takes its next job
 * at once. A worker runs its lane's jobs through the {@link AttemptRunner}, hands successes
 * to the {@link Completer}, claims for its lane itself while the lane's last claim came back
 * full (through the {@link Claimer}), and wakes the poll loop when its lane has room again.
 * It holds every attempt claimed here until it leaves its lane ({@link #inFlight()}, which
 * the heartbeat and the timeout sweep read), stops those whose cancel was asked for, and at
 * stop gives back what has not started and waits for what runs.
 */
final class Workers {

	private static final Logger logger = LoggerFactory.getLogger(Manager.class);

	private final ManagerSettings settings;

	private final Executor executor;

	private final Claimer claimer;

	private final Runnable wakeLoop;

	private final JobStore store;

	private final OutcomeRecorder recorder;

	private final Completer completer;

	private final AttemptRunner attempts;

	/** Replaced whole at start, read by commit and notification threads: never changed in place. */
	private volatile Map<String, Lane> lanes = Map.of();

	private final Set<Attempt> inFlight = ConcurrentHashMap.newKeySet();

	/** Held while a pause's claimed jobs are given back (see {@link #releasePaused}). */
	private final Object releasing = new Object();

	/**
	 * @param listener guarded already (see {@link JobListener#guarded})
	 * @param scheduler where the Completer's flushes run
	 * @param wakeLoop brings the poll loop's next claim forward
	 */
	Workers(JobStore store, PayloadCodec codec, ManagerSettings settings, Executor executor, JobListener listener,
			JobObservations observations, OutcomeRecorder recorder, TaskScheduler scheduler, Claimer claimer,
			Runnable wakeLoop) {
		this.store = store;
		this.settings = settings;
		this.executor = executor;
		this.claimer = claimer;
		this.wakeLoop = wakeLoop;
		this.recorder = recorder;
		this.completer = new Completer(store, scheduler, settings.completionLinger(), settings.completionBatchSize(),
				recorder, this::endsRecorded);
		this.attempts = new AttemptRunner(store, codec, settings, listener, observations, recorder, this::succeeded,
				this::ran);
	}

	/** Serves these queues, by name, from now on. */
	void open(Set<String> queues) {
		Map<String, Lane> lanes = new LinkedHashMap<>();
		queues.forEach((queue) -> lanes.put(queue,
				new Lane(queue, this.settings.concurrencyOf(queue), this.settings.prefetch())));
		this.lanes = Collections.unmodifiableMap(lanes);
	}

	Collection<Lane> lanes() {
		return this.lanes.values();
	}

	/** The attempts claimed here that have not left their lane: waiting, or running. */
	Set<Attempt> inFlight() {
		return this.inFlight;
	}

	/** A claimed job, for which its lane had room reserved: it waits for the lane's next free worker. */
	void claimed(Attempt attempt) {
		this.inFlight.add(attempt);
		attempt.lane.add(attempt);
	}

	/** Brings the next claim forward for those of these queues served here. */
	void wakeUp(Set<String> queues) {
		for (String queue : queues) {
			Lane lane = this.lanes.get(queue);
			if (lane != null) {
				wakeUp(lane);
			}
		}
	}

	/**
	 * The lane may have work to claim: the loop claims at once, or, while the lane is full, the
	 * worker that frees room does; a claim under way when this comes claims again.
	 */
	private void wakeUp(Lane lane) {
		lane.wokenUp();
		if (lane.room() > 0) {
			this.wakeLoop.run();
		}
		else {
			lane.moreWork(true);
		}
	}

	/** See {@link Manager#cancelRequested}. */
	void cancelRequested(Set<Long> jobIds) {
		for (Attempt attempt : this.inFlight) {
			if (jobIds.contains(attempt.job.id())) {
				cancel(attempt);
			}
		}
	}

	private void cancel(Attempt attempt) {
		if (!attempt.requestCancel()) {
			return;
		}
		if (attempt.release()) {
			try {
				this.recorder.cancelled(attempt);
			}
			finally {
				left(attempt);
			}
		}
		else if (attempt.isRunning() && attempt.settle()) {
			this.recorder.cancelled(attempt);
			attempt.interrupt();
		}
	}

	/** A claimed job whose deadline may have passed: it never starts. */
	private void expire(Attempt attempt) {
		if (attempt.release()) {
			try {
				this.recorder.expired(attempt);
			}
			finally {
				left(attempt);
			}
		}
	}

	void startWorkers(Lane lane) {
		while (lane.hasWaiting() && lane.takeWorker()) {
			try {
				this.executor.execute(() -> work(lane));
			}
			catch (RejectedExecutionException ex) {
				lane.returnWorker();
				logger.warn("sqlqueue worker executor rejected a worker for queue {}; giving its jobs back",
						lane.queue, ex);
				lane.drain().forEach(this::giveBack);
				return;
			}
		}
	}

	/**
	 * A worker: runs the lane's waiting jobs in order until none is left. A job whose lease
	 * may run out before the next heartbeat could extend it is not started but given back:
	 * after a freeze (a stopped JVM, a long pause, a stalled database) it may have been
	 * handed to another worker already, and running it here would run it twice. Nor does a
	 * job start whose lease this instance found lost while it waited (a heartbeat that found
	 * its row re-queued or claimed by another worker, as after a failover that lost its claim):
	 * it is dropped, unstarted (see {@link #drop}).
	 */
	private void work(Lane lane) {
		try {
			while (true) {
				// A timeout or a cancel may have interrupted this thread just as its previous job
				// ended: that interrupt belongs to that job, not to the claim, write or job next
				// (an interrupted thread gets no pooled connection, and a claim cut short between
				// its statements would strand the jobs it had taken until their leases expire).
				Thread.interrupted();
				Attempt attempt = lane.next();
				if (attempt == null) {
					if (claimAsWorker(lane)) {
						continue;
					}
					break;
				}
				if (!this.claimer.isRunning()) {
					// Stopping: what has not started is given back (stop() waits for it, as it is in flight).
					giveBack(attempt);
				}
				else if (this.claimer.paused().contains(lane.queue)) {
					// Claimed before its queue was paused: it stays QUEUED until the queue is resumed.
					giveBack(attempt);
				}
				else if (attempt.pastDeadline()) {
					expire(attempt);
				}
				else if (this.recorder.doubt().doubts(attempt) && !confirmLease(attempt)) {
					// Found lost (dropped), or not confirmed while it could be (given back).
					continue;
				}
				else if (attempt.leaseHoldsFor(this.settings.heartbeatInterval())) {
					if (!this.attempts.run(attempt) && attempt.isLeaseLost()) {
						drop(attempt);
					}
				}
				else {
					logger.info("{} waited for a worker until its lease could have run out; giving it back unstarted",
							attempt);
					giveBack(attempt);
				}
			}
		}
		finally {
			lane.returnWorker();
			if (lane.hasWaiting() && this.claimer.isRunning()) {
				startWorkers(lane);
			}
		}
	}

	/**
	 * A worker that ran out of jobs claims the next ones itself while its lane's last claim
	 * came back full, so that claims run in parallel, up to one per worker, rather than in
	 * turn behind the poll loop, which could feed the workers only a batch per round trip;
	 * returns whether it got any. It claims only when at least half a batch fits, so that
	 * workers running dry together do not split the room into many small claims. The poll
	 * loop takes over when the queue runs dry, and after an error, and claims alone for a
	 * queue with limits.
	 */
	private boolean claimAsWorker(Lane lane) {
		// The claims of a limited queue take turns on a lock: claims in parallel would only queue
		// for it, each with a smaller batch. The poll loop claims for such a queue alone.
		if (!this.claimer.isRunning() || !lane.moreWork() || lane.limited()) {
			return false;
		}
		try {
			this.claimer.claimFor(lane, halfABatch(lane), this);
		}
		catch (RuntimeException ex) {
			lane.moreWork(false);
			logger.debug("A worker of queue {} could not claim jobs; the poll loop claims again", lane.queue, ex);
			return false;
		}
		return lane.hasWaiting();
	}

	private int halfABatch(Lane lane) {
		return Math.max(1, Math.min(this.settings.batchSize(), lane.capacity()) / 2);
	}

	/** A success of a handler that is not transactional: it counts as such now, and the Completer records it. */
	private void succeeded(Attempt attempt, Completion completion) {
		attempt.endedAs(JobOutcome.SUCCEEDED);
		this.completer.add(attempt, completion);
	}

	/** An attempt ran on a worker: its time paces the lane's prefetch, and it leaves the lane. */
	private void ran(Attempt attempt) {
		attempt.lane.ran(attempt.runningFor().toNanos());
		left(attempt);
	}

	/**
	 * Jobs' ends were recorded: where a limit on running jobs held jobs back, those rows no
	 * longer count as running, so claim again at once. (A failure is recorded before its worker
	 * leaves the lane, a success a moment after, by the completion flush.)
	 */
	private void endsRecorded() {
		for (Lane lane : this.lanes.values()) {
			if (this.claimer.isRunning() && lane.heldByConcurrency()) {
				wakeUp(lane);
			}
		}
	}

	/** The attempt no longer occupies the lane: it ran, or was given back. */
	private void left(Attempt attempt) {
		this.inFlight.remove(attempt);
		Lane lane = attempt.lane;
		lane.done();
		// Claim again once half a batch fits, so that workers rarely wait for a claim's round trip;
		// or at once when a limit on running jobs held jobs back, as this one's end (if recorded
		// already: a failure, a give-back) may free room.
		boolean running = this.claimer.isRunning();
		if (running && lane.heldByConcurrency()) {
			wakeUp(lane);
		}
		else if (running && lane.moreWork() && lane.room() >= halfABatch(lane)) {
			this.wakeLoop.run();
		}
		synchronized (this.inFlight) {
			this.inFlight.notifyAll();
		}
	}

	/**
	 * A queue was paused: its claimed jobs that have not started go back to {@code QUEUED},
	 * and a worker that takes one before this drain does gives it back too (see {@link #work}).
	 * One release at a time: a second (the pausing thread's, after the poll loop read the
	 * pause first) returns only once the first has given its jobs back.
	 */
	void releasePaused(PausedQueues paused) {
		synchronized (this.releasing) {
			for (Lane lane : this.lanes.values()) {
				if (paused.contains(lane.queue)) {
					lane.drain().forEach(this::giveBack);
				}
			}
		}
	}

	/** At stop: gives back every claimed job that has not started; returns how many. */
	int releaseUnstarted() {
		int released = 0;
		for (Lane lane : this.lanes.values()) {
			for (Attempt attempt : lane.drain()) {
				giveBack(attempt);
				released++;
			}
		}
		return released;
	}

	/**
	 * Confirms the lease of an attempt claimed before the database was last found away, whose
	 * claim may have been lost with a failed-over primary (see {@link LeaseDoubt}): a statement
	 * that extends it says whether the row is still this attempt's. Tried again, with the waits
	 * of an outcome's write, while the database stays away and the lease surely holds; true
	 * when confirmed, else the attempt has left its lane: dropped when lost, given back when
	 * it could not be confirmed in time (or the instance stops).
	 */
	private boolean confirmLease(Attempt attempt) {
		for (int failures = 0;; failures++) {
			long sent = System.nanoTime();
			try {
				ExtendedLeases leases = this.store.extendLeases(List.of(attempt.lease), this.settings.leaseDuration());
				if (leases.extended().contains(attempt.lease) || leases.passedOver().contains(attempt.lease)) {
					attempt.leaseExtended(sent, this.settings.leaseDuration());
					return true;
				}
				this.recorder.leaseLost(attempt, "confirming its claim after the database was away");
				drop(attempt);
				return false;
			}
			catch (RuntimeException ex) {
				Duration wait = DatabaseErrors.retryWait(failures);
				if (!DatabaseErrors.isTransient(ex) || !this.claimer.isRunning()
						|| !attempt.leaseHoldsFor(this.settings.heartbeatInterval().plus(wait))) {
					logger.info("{} not started: its claim could not be confirmed after the database was away ({})",
							attempt, ex.toString());
					giveBack(attempt);
					return false;
				}
				this.recorder.doubt().databaseAway();
				logger.debug("Could not confirm the lease of {}; trying again in {}", attempt, wait, ex);
				sleep(wait);
			}
		}
	}

	/** Waits, an interrupt cutting it short but kept (the worker clears it before its next job). */
	private static void sleep(Duration wait) {
		try {
			Thread.sleep(wait.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * A claimed job whose lease was found lost before it started: it leaves its lane with
	 * nothing written, as the row is no longer this attempt's (the loss was counted and
	 * logged when it was found).
	 */
	private void drop(Attempt attempt) {
		if (attempt.release()) {
			logger.info("{} not started: its lease was found lost while it waited for a worker", attempt);
			left(attempt);
		}
	}

	private void giveBack(Attempt attempt) {
		if (!attempt.release()) {
			return;
		}
		try {
			this.store.release(attempt.lease);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not give back {}; the reaper re-queues it when its lease expires", attempt, ex);
		}
		finally {
			left(attempt);
		}
	}

	/** At stop: waits up to {@code timeout} for every attempt to leave its lane; false when some still run. */
	boolean awaitRunning(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this.inFlight) {
			while (!this.inFlight.isEmpty()) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				try {
					this.inFlight.wait(Math.max(1, left / 1_000_000));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return false;
				}
			}
		}
		return true;
	}

	/** At stop: how many handlers run now. */
	int running() {
		return (int) this.inFlight.stream().filter(Attempt::isRunning).count();
	}

	/**
	 * At stop, past the shutdown timeout: interrupts every handler still running; one that
	 * then ends by throwing gives its job back ({@link OutcomeRecorder}). Returns how many.
	 */
	int stopRunning() {
		int stopped = 0;
		for (Attempt attempt : this.inFlight) {
			if (attempt.isRunning() && !attempt.isSettled()) {
				attempt.stop();
				stopped++;
			}
		}
		return stopped;
	}

	/**
	 * At stop, after {@link #stopRunning}: settles the attempts whose handlers still run, so
	 * that nothing is written for them once the application has closed its pool, and returns
	 * them. Their jobs stay {@code RUNNING} until their leases run out.
	 */
	List<Attempt> abandonRunning() {
		List<Attempt> abandoned = new ArrayList<>();
		for (Attempt attempt : this.inFlight) {
			if (attempt.isRunning() && attempt.settle()) {
				abandoned.add(attempt);
			}
		}
		return abandoned;
	}

	/** At stop: records the successes waiting, and waits for them (see {@link Completer#flushAndWait}). */
	void flushAndWait(Duration bound) {
		this.completer.flushAndWait(bound);
	}

	/** Workers running a handler now, by queue. */
	Map<String, Integer> busyWorkers() {
		Map<String, Integer> busy = new LinkedHashMap<>();
		this.lanes.values().forEach((lane) -> busy.put(lane.queue, lane.busyWorkers()));
		return busy;
	}

	/** Workers per queue. */
	Map<String, Integer> totalWorkers() {
		Map<String, Integer> total = new LinkedHashMap<>();
		this.lanes.values().forEach((lane) -> total.put(lane.queue, lane.concurrency));
		return total;
	}

	/** The lanes as {@code queue=concurrency}, for the log. */
	String describe() {
		List<String> lanes = new ArrayList<>();
		this.lanes.values().forEach((lane) -> lanes.add(lane.queue + "=" + lane.concurrency));
		return lanes.toString();
	}

}
