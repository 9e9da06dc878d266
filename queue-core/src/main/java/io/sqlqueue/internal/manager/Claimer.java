package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Lock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobRecord;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.ClaimResult;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.LostRaces;

/**
 * Claims due jobs for the {@link Workers}' lanes: the poll loop's pass over every lane, and
 * the claims of workers that ran dry. It is the gate of claiming: no claim begins once
 * {@link #close()} was called, and {@link #awaitClaims()} waits for those under way.
 * <p>
 * The loop claims {@code min(room in the lane, batch size)} per queue; a full batch with
 * room left claims again at once, an empty one waits up to the poll interval (jittered, so
 * instances do not poll in lock-step), or less while a rate limit has room again sooner.
 * Database errors never end the loop: it logs, backs off and tries again.
 * <p>
 * A queue paused across the cluster ({@link PausedQueues}, read by the poll loop at most
 * every quarter of a poll interval) is not claimed, by the loop nor by a worker.
 */
final class Claimer {

	private static final Logger logger = LoggerFactory.getLogger(Manager.class);

	/**
	 * The longest wait after failed claims (unless the poll interval is longer): the loop
	 * claims again at most this long after the database is back from an outage or a failover.
	 * A failed claim costs one failed connection attempt, so tries every few seconds cost the
	 * database nothing while it is away, and the jobs that waited through the outage are not
	 * left waiting longer (a 30 s cap once left a loop asleep half a minute after a failover).
	 */
	static final Duration MAX_ERROR_BACKOFF = Duration.ofSeconds(5);

	/** The shortest wait for a rate limit's room before claiming again. */
	static final Duration MIN_THROTTLED_WAIT = Duration.ofMillis(10);

	private final JobStore store;

	private final HandlerRegistry handlers;

	private final ManagerSettings settings;

	private final JobListener listener;

	/** The handlers' names, read once at start: the registry is complete by then. */
	private volatile List<String> handlerNames = List.of();

	/** Changed under {@link #claims}, so that no claim begins once stopping began. */
	private volatile boolean running;

	/** Guards {@link #claimsUnderWay} and the change of {@link #running}. */
	private final Object claims = new Object();

	/** Claims under way, by the poll loop or by workers: stopping waits for them. */
	private int claimsUnderWay;

	private int consecutiveErrors;

	/** The queues paused across the cluster: none of their jobs is claimed. */
	private final PausedQueues paused;

	/** Told when a claim finds the database away: the claims made before are in doubt. */
	private final LeaseDoubt doubt;

	/** @param listener guarded already (see {@link JobListener#guarded}) */
	Claimer(JobStore store, HandlerRegistry handlers, ManagerSettings settings, JobListener listener,
			LeaseDoubt doubt) {
		this.doubt = doubt;
		this.store = store;
		this.handlers = handlers;
		this.settings = settings;
		this.listener = listener;
		this.paused = new PausedQueues(store.cluster()::pausedQueues, settings.pollInterval());
	}

	/** The queues paused across the cluster, as this instance last read them. */
	PausedQueues paused() {
		return this.paused;
	}

	/**
	 * Reads the paused queues now (a pause or resume committed on this instance) and gives
	 * back the claimed jobs of a queue paused since that have not started.
	 */
	void pausedChanged(Workers workers) {
		this.paused.refresh();
		// Whether or not this read found the change: the poll loop may have read it first and
		// be giving the jobs back now; this waits for that, so a pause returns once they are back.
		workers.releasePaused(this.paused);
	}

	/** Claims may begin, for the handlers the registry has now. */
	void open() {
		this.handlerNames = List.copyOf(this.handlers.names());
		synchronized (this.claims) {
			this.running = true;
		}
	}

	/** No claim begins from now on (those under way go on: see {@link #awaitClaims()}). */
	void close() {
		synchronized (this.claims) {
			this.running = false;
		}
	}

	/** Whether claims may begin: between {@link #open()} and {@link #close()}. */
	boolean isRunning() {
		return this.running;
	}

	/**
	 * The poll loop's step: claims for each lane of {@code workers}; returns the wait before
	 * the next.
	 */
	Duration pollOnce(Workers workers) {
		if (!this.running) {
			return this.settings.pollInterval();
		}
		// Once per poll at most, not per claim: the claims of workers that ran dry only look it up.
		if (this.paused.refreshIfStale()) {
			workers.releasePaused(this.paused);
		}
		// Each queue's claim on its own: one that fails (a statement the database refuses for one
		// queue's limits, say) must not keep the instance's other queues from being claimed.
		boolean again = false;
		RuntimeException failure = null;
		for (Lane lane : workers.lanes()) {
			try {
				again |= claimFor(lane, 1, workers);
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure == null) {
			if (this.consecutiveErrors > 0) {
				logger.info("sqlqueue Manager {} claims jobs again, after {} failed claims", this.settings.workerId(),
						this.consecutiveErrors);
			}
			this.consecutiveErrors = 0;
			return again ? Duration.ZERO : nextPoll(workers);
		}
		if (LostRaces.isLostRace(failure)) {
			// Claims of other instances (on a multi-primary cluster, other nodes) won each try of
			// the store's: the database is there, and the next poll claims as usual.
			logger.debug("sqlqueue Manager {} lost its claims to other instances' this time",
					this.settings.workerId(), failure);
			return nextPoll(workers);
		}
		this.consecutiveErrors++;
		Duration backoff = errorBackoff();
		// An outage or a failover loses nothing: its first failure is a WARN with its cause, the
		// tries while it lasts only DEBUG, its end an INFO.
		if (this.consecutiveErrors == 1) {
			logger.warn("sqlqueue Manager {} could not claim jobs; trying again in {}", this.settings.workerId(),
					backoff, failure);
		}
		else {
			logger.debug("sqlqueue Manager {} could not claim jobs (failure {} in a row); trying again in {}",
					this.settings.workerId(), this.consecutiveErrors, backoff, failure);
		}
		return backoff;
	}

	/**
	 * Claims for one lane, from the poll loop or from a worker that ran out of jobs, unless
	 * there is room for fewer than {@code least} jobs; returns whether to claim again at once.
	 * New work that comes while it claims (which the claim may not have seen, and whose
	 * wake-up found the room taken by it) counts as a full claim: the lane claims again.
	 */
	boolean claimFor(Lane lane, int least, Workers workers) {
		synchronized (this.claims) {
			if (!this.running) {
				return false;
			}
			this.claimsUnderWay++;
		}
		try {
			return claimUnderWay(lane, least, workers);
		}
		finally {
			synchronized (this.claims) {
				this.claimsUnderWay--;
				this.claims.notifyAll();
			}
		}
	}

	private boolean claimUnderWay(Lane lane, int least, Workers workers) {
		Lock gate = this.paused.claimGate();
		gate.lock();
		try {
			if (this.paused.contains(lane.queue)) {
				// Its jobs stay QUEUED; the poll that reads the queue resumed claims them.
				return false;
			}
			return claimUnpaused(lane, least, workers);
		}
		finally {
			gate.unlock();
		}
	}

	private boolean claimUnpaused(Lane lane, int least, Workers workers) {
		long wakeUps = lane.wakeUps();
		int wanted = lane.reserve(this.settings.batchSize());
		if (wanted < least) {
			lane.unreserve(wanted);
			lane.moreWork(true);
			return false;
		}
		long sent = System.nanoTime();
		ClaimResult claim;
		try {
			claim = this.store.claimJobs(new ClaimRequest(this.settings.workerId(), lane.queue, this.handlerNames,
					wanted, this.settings.leaseDuration().toMillis()));
		}
		catch (RuntimeException ex) {
			lane.unreserve(wanted);
			if (DatabaseErrors.isTransient(ex)) {
				this.doubt.databaseAway();
			}
			throw ex;
		}
		List<JobRecord> jobs = claim.jobs();
		lane.unreserve(wanted - jobs.size());
		lane.heldBack(claim.limited(), claim.throttledFor(), claim.heldByConcurrency());
		this.listener.claimed(lane.queue, jobs.size());
		boolean full = jobs.size() == wanted || lane.wakeUps() != wakeUps;
		lane.moreWork(full);
		for (JobRecord job : jobs) {
			HandlerDefinition handler = this.handlers.find(job.handler())
				.orElseThrow(() -> new IllegalStateException("Claimed job " + job.id() + " of unknown handler"));
			workers.claimed(new Attempt(job, handler, lane, sent, this.settings.leaseDuration()));
		}
		workers.startWorkers(lane);
		return full && lane.room() > 0;
	}

	/** Waits for the claims under way to end; none begins once {@link #close()} was called. */
	void awaitClaims() {
		synchronized (this.claims) {
			while (this.claimsUnderWay > 0) {
				try {
					this.claims.wait();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					logger.warn("Stopped waiting for {} claims under way; their jobs are given back as they come",
							this.claimsUnderWay);
					return;
				}
			}
		}
	}

	/**
	 * The wait before the next poll: the poll interval, jittered, or less when a rate limit
	 * held due jobs back and has room again sooner (not less than {@link #MIN_THROTTLED_WAIT},
	 * so that a tight limit gathers a few starts per claim rather than one per round trip).
	 */
	private Duration nextPoll(Workers workers) {
		Duration wait = jittered(this.settings.pollInterval());
		for (Lane lane : workers.lanes()) {
			if (lane.room() == 0) {
				// Its workers are busy: its hint is of no use until one frees room, which wakes the
				// loop itself (Workers.left). A passed hint would otherwise poll every lane every 10 ms.
				continue;
			}
			Duration untilRoom = lane.untilRateRoom();
			if (untilRoom != null && untilRoom.compareTo(wait) < 0) {
				wait = (untilRoom.compareTo(MIN_THROTTLED_WAIT) > 0) ? untilRoom : MIN_THROTTLED_WAIT;
			}
		}
		return wait;
	}

	private Duration jittered(Duration interval) {
		return Duration.ofMillis((long) (interval.toMillis() * ThreadLocalRandom.current().nextDouble(0.8, 1.0)));
	}

	private Duration errorBackoff() {
		long millis = this.settings.pollInterval().toMillis() << Math.min(this.consecutiveErrors, 10);
		long cap = Math.max(MAX_ERROR_BACKOFF.toMillis(), this.settings.pollInterval().toMillis());
		return jittered(Duration.ofMillis(Math.min(millis, cap)));
	}

}
