package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
import io.sqlqueue.internal.store.InstanceReport;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.internal.store.SettleListener;
import io.sqlqueue.observation.JobObservations;

/**
 * Runs jobs on this instance: claims due jobs of the handlers it has, hands them to
 * workers, beats their leases, and stops cleanly. It starts, stops and wires the parts that
 * do the work: the {@link Claimer} (the poll loop's claims and the workers'), the
 * {@link Workers} (a {@link Lane} per queue; each attempt run by the {@link AttemptRunner},
 * its success recorded by the {@link Completer}), the {@link Heartbeat} and the
 * {@link TimeoutSweep}.
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

	/** The most a stop waits for handlers it interrupted past the shutdown timeout. */
	static final Duration STOP_GRACE = Duration.ofSeconds(5);

	private final JobStore store;

	private final HandlerRegistry handlers;

	private final ManagerSettings settings;

	private final JobListener listener;

	private final OutcomeRecorder recorder;

	private final Claimer claimer;

	private final Workers workers;

	private volatile boolean autoStartup = true;

	private final PollLoop loop;

	private final Heartbeat heartbeat;

	private final TimeoutSweep timeouts;

	private final InstanceBeat instanceBeat;

	private final Object lifecycle = new Object();

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
		this.store = store;
		this.handlers = handlers;
		this.settings = settings;
		this.listener = JobListener.guarded(listener);
		this.recorder = new OutcomeRecorder(store, settings.retryPolicy(), this.listener);
		this.claimer = new Claimer(store, handlers, settings, this.listener, this.recorder.doubt());
		this.loop = PollLoop.onOwnThread("sqlqueue-poll", this::pollOnce);
		this.workers = new Workers(store, codec, settings, workers, this.listener, observations, this.recorder,
				scheduler, this.claimer, this.loop::wakeUp);
		this.heartbeat = new Heartbeat(store, settings, this.workers.inFlight(), this.recorder, scheduler,
				this::cancelRequested);
		this.timeouts = new TimeoutSweep(scheduler, handlers, settings.handlerTimeout(), this.workers.inFlight(),
				this.recorder);
		this.instanceBeat = new InstanceBeat(store.cluster(), settings, scheduler, this::instanceReport);
	}

	/** What this instance's row says now. */
	private InstanceReport instanceReport() {
		return InstanceBeat.report(this.settings, List.copyOf(servedQueues()), sum(totalWorkers()),
				sum(busyWorkers()));
	}

	private static int sum(Map<String, Integer> workers) {
		return workers.values().stream().mapToInt(Integer::intValue).sum();
	}

	/** The poll loop's step: a claim for each lane; returns the wait before the next. */
	private Duration pollOnce() {
		return this.claimer.pollOnce(this.workers);
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
			if (this.claimer.isRunning()) {
				return;
			}
			if (this.handlers.isEmpty()) {
				logger.info("sqlqueue Manager {} has no handlers: it claims nothing", this.settings.workerId());
				return;
			}
			this.workers.open(servedQueues());
			this.claimer.open();
			this.heartbeat.start();
			this.timeouts.start();
			this.store.addSettleListener(this.settled);
			this.loop.start();
			this.instanceBeat.start();
			logger.info("sqlqueue Manager {} started: queues {}, handlers {}", this.settings.workerId(),
					this.workers.describe(), this.handlers.names());
		}
	}

	@Override
	public void stop() {
		synchronized (this.lifecycle) {
			if (!this.claimer.isRunning()) {
				return;
			}
			this.claimer.close();
			this.loop.stop();
			// A claim under way queues its jobs in the lanes, where they are given back now: none may
			// start after the last flush, which would not record it.
			this.claimer.awaitClaims();
			int released = this.workers.releaseUnstarted();
			int running = this.workers.running();
			if (running > 0) {
				logger.info("sqlqueue Manager {} stopping: {} jobs running, waiting up to {}", this.settings.workerId(),
						running, this.settings.shutdownTimeout());
			}
			int interrupted = 0;
			List<Attempt> abandoned = List.of();
			if (!this.workers.awaitRunning(this.settings.shutdownTimeout())) {
				// While the pool is still open (the context stops lifecycle beans before it closes
				// the DataSource): a handler that ends when interrupted gives its job back.
				interrupted = this.workers.stopRunning();
				if (!this.workers.awaitRunning(stopGrace())) {
					abandoned = this.workers.abandonRunning();
					leaveAtStop(abandoned);
				}
			}
			this.workers.flushAndWait(this.settings.shutdownTimeout());
			this.timeouts.stop();
			this.heartbeat.stop();
			this.instanceBeat.stop();
			this.store.removeSettleListener(this.settled);
			for (Attempt attempt : abandoned) {
				logger.warn("sqlqueue Manager {}: {} did not end when interrupted at stop; its job runs again once "
						+ "its lease expires, with no crash counted", this.settings.workerId(), attempt);
			}
			logger.info("sqlqueue Manager {} stopped ({} claimed jobs given back unstarted, {} running jobs "
					+ "interrupted past {}, {} left to their leases)", this.settings.workerId(), released,
					interrupted - abandoned.size(), this.settings.shutdownTimeout(), abandoned.size());
		}
	}

	/**
	 * Says goodbye for the attempts whose handlers still run after the stop: their leases'
	 * end is then no crash. Where that cannot be written, it is one, as for an instance that died.
	 */
	private void leaveAtStop(List<Attempt> abandoned) {
		try {
			this.store.leaveAtStop(abandoned.stream().map((attempt) -> attempt.lease).toList());
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue Manager {} could not note that it stopped with {} handlers running; their jobs "
					+ "count a crash when their leases expire: {}", this.settings.workerId(), abandoned.size(),
					ex.toString());
		}
	}

	/** How long handlers interrupted at stop have to end: the shutdown timeout, five seconds at most. */
	private Duration stopGrace() {
		Duration timeout = this.settings.shutdownTimeout();
		return (timeout.compareTo(STOP_GRACE) < 0) ? timeout : STOP_GRACE;
	}

	@Override
	public boolean isRunning() {
		return this.claimer.isRunning();
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
		this.workers.wakeUp(queues);
	}

	/**
	 * Stops the jobs of these ids that this instance holds, because their cancel was asked for
	 * (call after the request commits): one not started yet never starts; a running one has
	 * its handler interrupted and sees {@link JobContext#isCancellationRequested()}. Either
	 * ends {@code CANCELLED} at once, by a write fenced by its lease; a handler that runs on
	 * regardless has its outcome ignored, as after a timeout.
	 */
	public void cancelRequested(Set<Long> jobIds) {
		this.workers.cancelRequested(jobIds);
	}

	/**
	 * Reads the paused queues again now, gives back the claimed jobs of a paused queue that
	 * have not started, and claims for those resumed (call after a pause or resume commits on
	 * this instance; the others read it within a poll interval).
	 */
	public void pausedChanged() {
		this.claimer.pausedChanged(this.workers);
		this.loop.wakeUp();
	}

	/** The queues paused across the cluster, as this instance last read them. */
	public Set<String> pausedQueues() {
		return this.claimer.paused().current();
	}

	/**
	 * Runs {@code task} after each beat of this instance's row, every heartbeat interval, on
	 * the beat's thread (the starter keeps the limits it declared declared so); it must not
	 * wait long.
	 */
	public void alsoAtEachBeat(Runnable task) {
		this.instanceBeat.alsoAtEachBeat(task);
	}

	/** Writes this instance's row now (tests step it; it is written every heartbeat interval). */
	public boolean beatInstance() {
		return this.instanceBeat.beatOnce();
	}

	/** Fenced writes and heartbeats that found the job no longer ours. */
	public long leaseLosses() {
		return this.recorder.leaseLosses();
	}

	/** Workers running a handler now, by queue. */
	public Map<String, Integer> busyWorkers() {
		return this.workers.busyWorkers();
	}

	/** Workers per queue this instance serves. */
	public Map<String, Integer> totalWorkers() {
		return this.workers.totalWorkers();
	}

	public ManagerSettings settings() {
		return this.settings;
	}

	/** The loop that extends the leases of the jobs this instance holds (tests step it). */
	public Heartbeat heartbeat() {
		return this.heartbeat;
	}

	/** The loop that fails attempts past their timeout (tests step it). */
	public TimeoutSweep timeoutSweep() {
		return this.timeouts;
	}

}
