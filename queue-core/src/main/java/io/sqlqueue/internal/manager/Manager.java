package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.JobContext;
import io.sqlqueue.JobListener;
import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobRecord;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.ClaimResult;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.ExtendedLeases;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.internal.store.SettleListener;
import io.sqlqueue.observation.JobObservations;

/**
 * Runs jobs on this instance: claims due jobs of the handlers it has, hands them to
 * workers, beats their leases, and stops cleanly.
 * <p>
 * Each queue is a {@link Lane} of {@code concurrency} workers that may hold
 * {@code prefetch} more claimed jobs, so a worker that finishes takes its next job at once.
 * The loop claims {@code min(room in the lane, batch size)} per queue; a full batch with
 * room left claims again at once, an empty one waits up to the poll interval (jittered, so
 * instances do not poll in lock-step) unless an enqueue or a freed lane wakes it. Database
 * errors never end the loop: it logs, backs off and tries again.
 * <p>
 * Stopping stops claiming and waits for every claim under way (the poll loop's and those
 * of workers that ran dry), gives back claimed jobs that have not started, waits up to the
 * shutdown timeout for running handlers and records their outcomes; what still runs then is
 * left to the reaper. No job starts once stopping began.
 * <p>
 * Threads: the poll loop and the heartbeat each have a thread of their own
 * ({@code sqlqueue-poll}, {@code sqlqueue-heartbeat}), so that neither waits for the other
 * nor for a task of the shared scheduler, whose statements may wait on a caller's lock; the
 * heartbeat's statements never wait on a row lock (they pass over locked rows). The timeout
 * sweep, the completion flushes and the writes of cancels the heartbeat found run on the
 * scheduler given.
 */
public class Manager implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(Manager.class);

	private static final Duration MAX_ERROR_BACKOFF = Duration.ofSeconds(30);

	/** The shortest wait for a rate limit's room before claiming again. */
	static final Duration MIN_THROTTLED_WAIT = Duration.ofMillis(10);

	private final JobStore store;

	private final HandlerRegistry handlers;

	private final PayloadCodec codec;

	private final ManagerSettings settings;

	private final TaskScheduler scheduler;

	private final Executor workers;

	private final JobListener listener;

	private final OutcomeRecorder recorder;

	private final Completer completer;

	private final JobObservations observations;

	private volatile boolean autoStartup = true;

	/** Replaced whole at start, read by commit and notification threads: never changed in place. */
	private volatile Map<String, Lane> lanes = Map.of();

	/** The handlers' names, read once at start: the registry is complete by then. */
	private volatile List<String> handlerNames = List.of();

	private final Set<Attempt> inFlight = ConcurrentHashMap.newKeySet();

	private final PollLoop loop;

	private final PollLoop heartbeat;

	private final PollLoop timeouts;

	private final Object lifecycle = new Object();

	/** Changed under {@link #claims}, so that no claim begins once stopping began. */
	private volatile boolean running;

	/** Guards {@link #claimsUnderWay} and the change of {@link #running}. */
	private final Object claims = new Object();

	/** Claims under way, by the poll loop or by workers: stopping waits for them. */
	private int claimsUnderWay;

	private int consecutiveErrors;

	/** Wakes the lanes of jobs whose dependencies ended here, and counts jobs cancelled by a failed one. */
	private final SettleListener settled = new SettleListener() {

		@Override
		public void released(Set<String> queues) {
			wakeUp(queues);
		}

		@Override
		public void cancelled(String queue, String handler) {
			Manager.this.listener.cancelled(queue, handler);
		}

	};

	public Manager(JobStore store, HandlerRegistry handlers, PayloadCodec codec, ManagerSettings settings,
			TaskScheduler scheduler, Executor workers) {
		this(store, handlers, codec, settings, scheduler, workers, JobListener.NONE);
	}

	public Manager(JobStore store, HandlerRegistry handlers, PayloadCodec codec, ManagerSettings settings,
			TaskScheduler scheduler, Executor workers, JobListener listener) {
		this(store, handlers, codec, settings, scheduler, workers, listener, JobObservations.NONE);
	}

	/**
	 * @param observations what observes each attempt, as the child of the propagation
	 * context stored with its job
	 */
	public Manager(JobStore store, HandlerRegistry handlers, PayloadCodec codec, ManagerSettings settings,
			TaskScheduler scheduler, Executor workers, JobListener listener, JobObservations observations) {
		this.observations = observations;
		this.store = store;
		this.handlers = handlers;
		this.codec = codec;
		this.settings = settings;
		this.scheduler = scheduler;
		this.workers = workers;
		this.listener = JobListener.guarded(listener);
		this.recorder = new OutcomeRecorder(store, settings.retryPolicy(), this.listener);
		this.completer = new Completer(store, scheduler, settings.completionLinger(),
				settings.completionBatchSize(), this.recorder, this::endsRecorded);
		this.loop = PollLoop.onOwnThread("sqlqueue-poll", this::pollOnce);
		this.heartbeat = PollLoop.onOwnThread("sqlqueue-heartbeat", () -> {
			beat();
			return this.settings.heartbeatInterval();
		});
		this.timeouts = new PollLoop(scheduler, () -> {
			sweepTimeouts();
			return timeoutSweepInterval();
		});
	}

	/** The queues this Manager serves (or will, once started): those of its handlers and those configured. */
	public Set<String> servedQueues() {
		return servedQueues(this.handlers, this.settings);
	}

	/** The queues a Manager with these handlers and settings serves. */
	public static Set<String> servedQueues(HandlerRegistry handlers, ManagerSettings settings) {
		Set<String> queues = new TreeSet<>(handlers.queues());
		queues.addAll(settings.queues());
		return queues;
	}

	@Override
	public void start() {
		synchronized (this.lifecycle) {
			if (this.running) {
				return;
			}
			if (this.handlers.isEmpty()) {
				logger.info("sqlqueue Manager {} has no handlers: it claims nothing", this.settings.workerId());
				return;
			}
			Map<String, Lane> lanes = new LinkedHashMap<>();
			servedQueues().forEach((queue) -> lanes.put(queue,
					new Lane(queue, this.settings.concurrencyOf(queue), this.settings.prefetch())));
			this.lanes = Collections.unmodifiableMap(lanes);
			this.handlerNames = List.copyOf(this.handlers.names());
			synchronized (this.claims) {
				this.running = true;
			}
			this.heartbeat.start();
			this.timeouts.start();
			this.store.addSettleListener(this.settled);
			this.loop.start();
			logger.info("sqlqueue Manager {} started: queues {}, handlers {}", this.settings.workerId(),
					describeLanes(), this.handlers.names());
		}
	}

	@Override
	public void stop() {
		synchronized (this.lifecycle) {
			if (!this.running) {
				return;
			}
			synchronized (this.claims) {
				this.running = false;
			}
			this.loop.stop();
			// A claim under way queues its jobs in the lanes, where they are given back now: none may
			// start after the last flush, which would not record it.
			awaitClaims();
			int released = releaseUnstarted();
			boolean finished = awaitRunning(this.settings.shutdownTimeout());
			this.completer.flushAndWait(this.settings.shutdownTimeout());
			this.timeouts.stop();
			this.heartbeat.stop();
			this.store.removeSettleListener(this.settled);
			if (finished) {
				logger.info("sqlqueue Manager {} stopped ({} claimed jobs given back unstarted)",
						this.settings.workerId(), released);
			}
			else {
				logger.warn("sqlqueue Manager {} stopped with {} handlers still running after {}; "
						+ "the reaper re-queues them when their leases expire", this.settings.workerId(),
						this.inFlight.size(), this.settings.shutdownTimeout());
			}
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Whether the context starts it (default true); the test kit turns it off, so tests run jobs themselves. */
	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	@Override
	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	/** Starts last and stops first, so handlers can use every other bean. */
	@Override
	public int getPhase() {
		return SmartLifecycle.DEFAULT_PHASE;
	}

	/** Brings the next claim forward when these queues got new work (call after the enqueue commits). */
	public void wakeUp(Set<String> queues) {
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
			this.loop.wakeUp();
		}
		else {
			lane.moreWork(true);
		}
	}

	/**
	 * Stops the jobs of these ids that this instance holds, because their cancel was asked for
	 * (call after the request commits): one not started yet never starts; a running one has
	 * its handler interrupted and sees {@link JobContext#isCancellationRequested()}. Either
	 * ends {@code CANCELLED} at once, by a write fenced by its lease; a handler that runs on
	 * regardless has its outcome ignored, as after a timeout.
	 */
	public void cancelRequested(Set<Long> jobIds) {
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

	/** Fenced writes and heartbeats that found the job no longer ours. */
	public long leaseLosses() {
		return this.recorder.leaseLosses();
	}

	/** Workers running a handler now, by queue. */
	public Map<String, Integer> busyWorkers() {
		Map<String, Integer> busy = new LinkedHashMap<>();
		this.lanes.values().forEach((lane) -> busy.put(lane.queue, lane.busyWorkers()));
		return busy;
	}

	/** Workers per queue this instance serves. */
	public Map<String, Integer> totalWorkers() {
		Map<String, Integer> total = new LinkedHashMap<>();
		this.lanes.values().forEach((lane) -> total.put(lane.queue, lane.concurrency));
		return total;
	}

	public ManagerSettings settings() {
		return this.settings;
	}

	private Duration pollOnce() {
		if (!this.running) {
			return this.settings.pollInterval();
		}
		// Each queue's claim on its own: one that fails (a statement the database refuses for one
		// queue's limits, say) must not keep the instance's other queues from being claimed.
		boolean again = false;
		RuntimeException failure = null;
		for (Lane lane : this.lanes.values()) {
			try {
				again |= claimFor(lane);
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
			this.consecutiveErrors = 0;
			return again ? Duration.ZERO : nextPoll();
		}
		this.consecutiveErrors++;
		Duration backoff = errorBackoff();
		logger.warn("sqlqueue Manager {} could not claim jobs (failure {} in a row); trying again in {}",
				this.settings.workerId(), this.consecutiveErrors, backoff, failure);
		return backoff;
	}

	/**
	 * Claims for one lane, from the poll loop or from a worker that ran out of jobs; returns
	 * whether to claim again at once.
	 */
	private boolean claimFor(Lane lane) {
		return claimFor(lane, 1);
	}

	/**
	 * Claims unless there is room for fewer than {@code least} jobs. New work that comes while
	 * it claims (which the claim may not have seen, and whose wake-up found the room taken by
	 * it) counts as a full claim: the lane claims again.
	 */
	private boolean claimFor(Lane lane, int least) {
		synchronized (this.claims) {
			if (!this.running) {
				return false;
			}
			this.claimsUnderWay++;
		}
		try {
			return claimUnderWay(lane, least);
		}
		finally {
			synchronized (this.claims) {
				this.claimsUnderWay--;
				this.claims.notifyAll();
			}
		}
	}

	private boolean claimUnderWay(Lane lane, int least) {
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
			Attempt attempt = new Attempt(job, handler, lane, sent, this.settings.leaseDuration());
			this.inFlight.add(attempt);
			lane.add(attempt);
		}
		startWorkers(lane);
		return full && lane.room() > 0;
	}

	private void startWorkers(Lane lane) {
		while (lane.hasWaiting() && lane.takeWorker()) {
			try {
				this.workers.execute(() -> work(lane));
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
	 * handed to another worker already, and running it here would run it twice.
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
				if (!this.running) {
					// Stopping: what has not started is given back (stop() waits for it, as it is in flight).
					giveBack(attempt);
				}
				else if (attempt.pastDeadline()) {
					expire(attempt);
				}
				else if (attempt.leaseHoldsFor(this.settings.heartbeatInterval())) {
					run(attempt);
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
			if (lane.hasWaiting() && this.running) {
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
		if (!this.running || !lane.moreWork() || lane.limited()) {
			return false;
		}
		try {
			claimFor(lane, Math.max(1, Math.min(this.settings.batchSize(), lane.capacity()) / 2));
		}
		catch (RuntimeException ex) {
			lane.moreWork(false);
			logger.debug("A worker of queue {} could not claim jobs; the poll loop claims again", lane.queue, ex);
			return false;
		}
		return lane.hasWaiting();
	}

	private void run(Attempt attempt) {
		if (!attempt.start()) {
			return;
		}
		MDC.put("sqlqueue.jobId", String.valueOf(attempt.job.id()));
		MDC.put("sqlqueue.handler", attempt.job.handler());
		MDC.put("sqlqueue.attempt", String.valueOf(attempt.job.attempts()));
		JobObservations.Attempt observation = this.observations.attemptStarted(attempt.job);
		try {
			this.listener.started(attempt.job, waited(attempt.job));
			if (attempt.handler.transactional()) {
				TransactionalAttempt.run(attempt, context(attempt), this.store, this.recorder,
						(result) -> completion(attempt, result));
			}
			else {
				Object result = attempt.handler.invoker().invoke(attempt.job.payload(), context(attempt));
				attempt.handlerReturned();
				if (attempt.settle()) {
					attempt.endedAs(JobOutcome.SUCCEEDED);
					this.completer.add(attempt, completion(attempt, result));
				}
			}
		}
		catch (Throwable failure) {
			observation.error(failure);
			attempt.handlerReturned();
			if (attempt.settle()) {
				this.recorder.failed(attempt, failure, false);
			}
		}
		finally {
			observation.stop(attempt.outcome());
			MDC.remove("sqlqueue.jobId");
			MDC.remove("sqlqueue.handler");
			MDC.remove("sqlqueue.attempt");
			attempt.lane.ran(attempt.runningFor().toNanos());
			left(attempt);
		}
	}

	private AttemptContext context(Attempt attempt) {
		return new AttemptContext(attempt, this.store, this.recorder, this.settings.leaseDuration());
	}

	/**
	 * Jobs' ends were recorded: where a limit on running jobs held jobs back, those rows no
	 * longer count as running, so claim again at once. (A failure is recorded before its worker
	 * leaves the lane, a success a moment after, by the completion flush.)
	 */
	private void endsRecorded() {
		for (Lane lane : this.lanes.values()) {
			if (this.running && lane.heldByConcurrency()) {
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
		if (this.running && lane.heldByConcurrency()) {
			wakeUp(lane);
		}
		else if (this.running && lane.moreWork()
				&& lane.room() >= Math.max(1, Math.min(this.settings.batchSize(), lane.capacity()) / 2)) {
			this.loop.wakeUp();
		}
		synchronized (this.inFlight) {
			this.inFlight.notifyAll();
		}
	}

	/** The success to record (see {@link Results#completion}). */
	private Completion completion(Attempt attempt, @Nullable Object result) {
		return Results.completion(this.codec, this.store, this.settings.resultMaxSize(), attempt, result);
	}

	/** Fails attempts that ran past their timeout, and interrupts their handlers. */
	private void sweepTimeouts() {
		for (Attempt attempt : this.inFlight) {
			Duration timeout = timeoutOf(attempt.handler);
			if (attempt.isRunning() && attempt.runningFor().compareTo(timeout) > 0 && attempt.settle()) {
				timedOut(attempt, new JobTimeoutException(timeout));
			}
		}
	}

	/**
	 * Records the timed-out attempt's failure, then interrupts its handler, on the scheduler:
	 * the write may wait (a bounded while, and tries again) for a row a caller's transaction
	 * holds, and the sweep goes on timing out the other attempts meanwhile. Where the
	 * scheduler refuses it (the application closes), on this thread.
	 */
	private void timedOut(Attempt attempt, JobTimeoutException failure) {
		Runnable fail = () -> {
			this.recorder.failed(attempt, failure, true);
			attempt.interrupt();
		};
		try {
			this.scheduler.schedule(fail, Instant.now());
		}
		catch (RuntimeException ex) {
			fail.run();
		}
	}

	private Duration timeoutSweepInterval() {
		Duration shortest = this.settings.handlerTimeout();
		for (HandlerDefinition handler : this.handlers.all()) {
			if (handler.timeout() != null && handler.timeout().compareTo(shortest) < 0) {
				shortest = handler.timeout();
			}
		}
		long millis = Math.max(10, Math.min(1000, shortest.toMillis() / 10));
		return Duration.ofMillis(millis);
	}

	private void beat() {
		List<Attempt> attempts = this.inFlight.stream().filter((attempt) -> !attempt.isSettled()).toList();
		if (attempts.isEmpty()) {
			return;
		}
		try {
			long sent = System.nanoTime();
			ExtendedLeases leases = this.store.extendLeases(
					attempts.stream().map((attempt) -> attempt.lease).toList(), this.settings.leaseDuration());
			Set<Lease> lost = new HashSet<>(leases.lost());
			List<Long> held = new ArrayList<>();
			for (Attempt attempt : attempts) {
				if (leases.extended().contains(attempt.lease)) {
					attempt.leaseExtended(sent, this.settings.leaseDuration());
					held.add(attempt.job.id());
				}
				else if (!lost.contains(attempt.lease)) {
					// Its row is locked by another transaction: still ours, extended at a later beat.
					held.add(attempt.job.id());
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
					this.scheduler.schedule(() -> cancelRequested(cancels), Instant.now());
				}
				catch (RuntimeException ex) {
					logger.debug("Could not hand on the cancels of jobs {}", cancels, ex);
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue Manager {} could not extend {} leases", this.settings.workerId(), attempts.size(),
					ex);
		}
	}

	/** Waits for the claims under way to end; none begins once {@link #running} is false. */
	private void awaitClaims() {
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

	private int releaseUnstarted() {
		int released = 0;
		for (Lane lane : this.lanes.values()) {
			for (Attempt attempt : lane.drain()) {
				giveBack(attempt);
				released++;
			}
		}
		return released;
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

	private boolean awaitRunning(Duration timeout) {
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

	private static Duration waited(JobRecord job) {
		Instant started = job.startedAt();
		return (started != null && started.isAfter(job.runAt())) ? Duration.between(job.runAt(), started)
				: Duration.ZERO;
	}

	private Duration timeoutOf(HandlerDefinition handler) {
		return (handler.timeout() != null) ? handler.timeout() : this.settings.handlerTimeout();
	}

	/**
	 * The wait before the next poll: the poll interval, jittered, or less when a rate limit
	 * held due jobs back and has room again sooner (not less than {@link #MIN_THROTTLED_WAIT},
	 * so that a tight limit gathers a few starts per claim rather than one per round trip).
	 */
	private Duration nextPoll() {
		Duration wait = jittered(this.settings.pollInterval());
		for (Lane lane : this.lanes.values()) {
			if (lane.room() == 0) {
				// Its workers are busy: its hint is of no use until one frees room, which wakes the
				// loop itself (left()). A passed hint would otherwise poll every lane every 10 ms.
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
		return jittered(Duration.ofMillis(Math.min(millis, MAX_ERROR_BACKOFF.toMillis())));
	}

	private String describeLanes() {
		List<String> lanes = new ArrayList<>();
		this.lanes.values().forEach((lane) -> lanes.add(lane.queue + "=" + lane.concurrency));
		return lanes.toString();
	}

}
