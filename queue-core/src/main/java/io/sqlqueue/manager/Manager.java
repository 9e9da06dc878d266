package io.sqlqueue.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

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
import io.sqlqueue.LeaseLostException;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.HandlerRegistry;
import io.sqlqueue.handler.PayloadCodec;
import io.sqlqueue.store.ClaimRequest;
import io.sqlqueue.store.Completion;
import io.sqlqueue.store.JobStore;
import io.sqlqueue.store.Lease;

/**
 * Runs jobs on this instance: claims due jobs of the handlers it has, as many as it has
 * free workers, hands them to workers, beats their leases, and stops cleanly.
 * <p>
 * The loop claims {@code min(free workers, batch size)} per queue; a full batch with
 * workers left claims again at once, an empty one waits up to the poll interval
 * (jittered, so instances do not poll in lock-step) unless an enqueue or a freed worker
 * wakes it. Database errors never end the loop: it logs, backs off and tries again.
 * <p>
 * Stopping stops claiming, gives back claimed jobs that have not started, and waits up to
 * the shutdown timeout for running handlers; what still runs then is left to the reaper.
 */
public class Manager implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(Manager.class);

	private static final Duration MAX_ERROR_BACKOFF = Duration.ofSeconds(30);

	private final JobStore store;

	private final HandlerRegistry handlers;

	private final PayloadCodec codec;

	private final ManagerSettings settings;

	private final TaskScheduler scheduler;

	private final Executor workers;

	private final JobListener listener;

	private final Map<String, Lane> lanes = new LinkedHashMap<>();

	private final Set<Attempt> inFlight = ConcurrentHashMap.newKeySet();

	private final PollLoop loop;

	private final AtomicLong leaseLosses = new AtomicLong();

	private final Object lifecycle = new Object();

	private volatile boolean running;

	private int consecutiveErrors;

	private @Nullable ScheduledFuture<?> heartbeat;

	public Manager(JobStore store, HandlerRegistry handlers, PayloadCodec codec, ManagerSettings settings,
			TaskScheduler scheduler, Executor workers) {
		this(store, handlers, codec, settings, scheduler, workers, JobListener.NONE);
	}

	public Manager(JobStore store, HandlerRegistry handlers, PayloadCodec codec, ManagerSettings settings,
			TaskScheduler scheduler, Executor workers, JobListener listener) {
		this.store = store;
		this.listener = listener;
		this.handlers = handlers;
		this.codec = codec;
		this.settings = settings;
		this.scheduler = scheduler;
		this.workers = workers;
		this.loop = new PollLoop(scheduler, this::pollOnce);
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
			Set<String> queues = new TreeSet<>(this.handlers.queues());
			queues.addAll(this.settings.queues());
			this.lanes.clear();
			queues.forEach((queue) -> this.lanes.put(queue, new Lane(queue, this.settings.concurrencyOf(queue))));
			this.running = true;
			this.heartbeat = this.scheduler.scheduleWithFixedDelay(this::beat, Instant.now()
				.plus(this.settings.heartbeatInterval()), this.settings.heartbeatInterval());
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
			this.running = false;
			this.loop.stop();
			int released = releaseUnstarted();
			boolean finished = awaitRunning(this.settings.shutdownTimeout());
			if (this.heartbeat != null) {
				this.heartbeat.cancel(false);
			}
			if (finished) {
				logger.info("sqlqueue Manager {} stopped ({} unstarted jobs released)", this.settings.workerId(),
						released);
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

	/** Starts last and stops first, so handlers can use every other bean. */
	@Override
	public int getPhase() {
		return SmartLifecycle.DEFAULT_PHASE;
	}

	/** Brings the next claim forward when these queues got new work (call after the enqueue commits). */
	public void wakeUp(Set<String> queues) {
		for (String queue : queues) {
			Lane lane = this.lanes.get(queue);
			if (lane != null && lane.freeWorkers() > 0) {
				this.loop.wakeUp();
				return;
			}
		}
	}

	/** Fenced writes and heartbeats that found the job no longer ours. */
	public long leaseLosses() {
		return this.leaseLosses.get();
	}

	/** Workers running or holding a claimed job now, by queue. */
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
		try {
			boolean again = false;
			for (Lane lane : this.lanes.values()) {
				again |= claimFor(lane);
			}
			this.consecutiveErrors = 0;
			return again ? Duration.ZERO : jittered(this.settings.pollInterval());
		}
		catch (RuntimeException ex) {
			this.consecutiveErrors++;
			Duration backoff = errorBackoff();
			logger.warn("sqlqueue Manager {} could not claim jobs (failure {} in a row); trying again in {}",
					this.settings.workerId(), this.consecutiveErrors, backoff, ex);
			return backoff;
		}
	}

	/** Claims for one lane; returns whether to claim again at once. */
	private boolean claimFor(Lane lane) {
		int free = lane.freeWorkers();
		if (free == 0) {
			lane.moreWork(true);
			return false;
		}
		int wanted = Math.min(free, this.settings.batchSize());
		List<JobRecord> jobs = this.store.claim(new ClaimRequest(this.settings.workerId(), lane.queue,
				this.handlers.names(), wanted, this.settings.leaseDuration().toMillis()));
		this.listener.claimed(lane.queue, jobs.size());
		boolean full = jobs.size() == wanted;
		lane.moreWork(full);
		for (JobRecord job : jobs) {
			dispatch(job, lane);
		}
		return full && lane.freeWorkers() > 0;
	}

	private void dispatch(JobRecord job, Lane lane) {
		HandlerDefinition handler = this.handlers.find(job.handler())
			.orElseThrow(() -> new IllegalStateException("Claimed job " + job.id() + " of unknown handler"));
		Attempt attempt = new Attempt(job, handler, lane);
		if (!lane.takeWorker()) {
			// Only this loop takes workers, and it claimed no more than were free.
			throw new IllegalStateException("No free worker for " + attempt);
		}
		this.inFlight.add(attempt);
		try {
			this.workers.execute(() -> run(attempt));
		}
		catch (RejectedExecutionException ex) {
			logger.warn("sqlqueue worker executor rejected {}; giving it back", attempt, ex);
			attempt.release();
			giveBack(attempt);
			finished(attempt);
		}
	}

	private void run(Attempt attempt) {
		if (!attempt.start()) {
			return;
		}
		Duration timeout = timeoutOf(attempt.handler);
		attempt.timeout(this.scheduler.schedule(() -> timedOut(attempt, timeout), Instant.now().plus(timeout)));
		MDC.put("sqlqueue.jobId", String.valueOf(attempt.job.id()));
		MDC.put("sqlqueue.handler", attempt.job.handler());
		MDC.put("sqlqueue.attempt", String.valueOf(attempt.job.attempts()));
		this.listener.started(attempt.job, waited(attempt.job));
		try {
			Object result = attempt.handler.invoker().invoke(attempt.job.payload(), new AttemptContext(attempt));
			attempt.cancelTimeout();
			if (attempt.settle()) {
				succeed(attempt, result);
			}
		}
		catch (Throwable failure) {
			attempt.cancelTimeout();
			if (attempt.settle()) {
				fail(attempt, failure, false);
			}
		}
		finally {
			MDC.remove("sqlqueue.jobId");
			MDC.remove("sqlqueue.handler");
			MDC.remove("sqlqueue.attempt");
			finished(attempt);
		}
	}

	private void finished(Attempt attempt) {
		this.inFlight.remove(attempt);
		if (attempt.lane.returnWorker() && this.running) {
			this.loop.wakeUp();
		}
		synchronized (this.inFlight) {
			this.inFlight.notifyAll();
		}
	}

	private void succeed(Attempt attempt, @Nullable Object result) {
		String json = encodeResult(attempt, result);
		write(attempt, JobOutcome.SUCCEEDED,
				() -> this.store.complete(List.of(new Completion(attempt.lease, json)))[0]);
	}

	private @Nullable String encodeResult(Attempt attempt, @Nullable Object result) {
		try {
			return this.codec.encodeResult(result);
		}
		catch (RuntimeException ex) {
			logger.warn("The result of {} cannot be encoded as JSON; storing none", attempt, ex);
			return null;
		}
	}

	private void fail(Attempt attempt, Throwable failure, boolean timedOut) {
		String error = describe(failure);
		int attempts = attempt.job.attempts();
		int maxAttempts = attempt.job.maxAttempts();
		if (!timedOut && attempt.handler.isNonRetryable(failure)) {
			logger.warn("{} failed for good (not retryable): {}", attempt, failure.toString());
			write(attempt, JobOutcome.FAILED, () -> this.store.fail(attempt.lease, error));
		}
		else if (attempts >= maxAttempts) {
			logger.warn("{} failed for good (attempts used up): {}", attempt, failure.toString());
			write(attempt, JobOutcome.FAILED, () -> this.store.fail(attempt.lease, error));
		}
		else {
			Duration backoff = this.settings.retryPolicy().backoff(attempts);
			logger.debug("{} failed; retrying in {}: {}", attempt, backoff, failure.toString());
			write(attempt, JobOutcome.RETRIED, () -> this.store.reschedule(attempt.lease, error, backoff));
		}
	}

	private void timedOut(Attempt attempt, Duration timeout) {
		if (!attempt.settle()) {
			return;
		}
		fail(attempt, new JobTimeoutException(timeout), true);
		attempt.interrupt();
	}

	private void write(Attempt attempt, JobOutcome outcome, FencedWrite write) {
		try {
			if (write.held()) {
				this.listener.finished(attempt.job, outcome, attempt.runningFor());
			}
			else {
				leaseLost(attempt, "recording " + outcome.tag());
			}
		}
		catch (RuntimeException ex) {
			logger.error("Could not record {} as {}; it runs again after its lease expires", attempt, outcome.tag(),
					ex);
		}
	}

	private void leaseLost(Attempt attempt, String during) {
		if (attempt.markLeaseLost()) {
			this.leaseLosses.incrementAndGet();
			this.listener.leaseLost(attempt.job);
			logger.warn("Lease of {} was lost ({}): the job was handed to another worker or changed by an operator; "
					+ "this attempt's outcome is not recorded", attempt, during);
		}
	}

	private void beat() {
		List<Attempt> attempts = this.inFlight.stream().filter((attempt) -> !attempt.isSettled()).toList();
		if (attempts.isEmpty()) {
			return;
		}
		try {
			List<Lease> lost = this.store.extendLeases(attempts.stream().map((attempt) -> attempt.lease).toList(),
					this.settings.leaseDuration());
			for (Attempt attempt : attempts) {
				if (lost.contains(attempt.lease) && !attempt.isSettled()) {
					leaseLost(attempt, "heartbeat");
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue Manager {} could not extend {} leases", this.settings.workerId(), attempts.size(),
					ex);
		}
	}

	private int releaseUnstarted() {
		int released = 0;
		for (Attempt attempt : List.copyOf(this.inFlight)) {
			if (attempt.release()) {
				giveBack(attempt);
				finished(attempt);
				released++;
			}
		}
		return released;
	}

	private void giveBack(Attempt attempt) {
		try {
			this.store.release(attempt.lease);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not give back {}; the reaper re-queues it when its lease expires", attempt, ex);
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

	static String describe(Throwable failure) {
		StringBuilder text = new StringBuilder(failure.toString());
		StackTraceElement[] frames = failure.getStackTrace();
		for (int i = 0; i < Math.min(frames.length, 8); i++) {
			text.append("\n\tat ").append(frames[i]);
		}
		Throwable cause = failure.getCause();
		if (cause != null && cause != failure) {
			text.append("\nCaused by: ").append(cause);
		}
		return (text.length() <= 4000) ? text.toString() : text.substring(0, 4000);
	}

	@FunctionalInterface
	private interface FencedWrite {

		boolean held();

	}

	private final class AttemptContext implements JobContext {

		private final Attempt attempt;

		AttemptContext(Attempt attempt) {
			this.attempt = attempt;
		}

		@Override
		public long jobId() {
			return this.attempt.job.id();
		}

		@Override
		public String handler() {
			return this.attempt.job.handler();
		}

		@Override
		public String queue() {
			return this.attempt.job.queue();
		}

		@Override
		public int attempt() {
			return this.attempt.job.attempts();
		}

		@Override
		public int maxAttempts() {
			return this.attempt.job.maxAttempts();
		}

		@Override
		public void extendLease() {
			if (!Manager.this.store.extendLeases(List.of(this.attempt.lease), Manager.this.settings.leaseDuration())
				.isEmpty()) {
				leaseLost(this.attempt, "extendLease");
				throw new LeaseLostException(this.attempt.job.id());
			}
		}

	}

}
