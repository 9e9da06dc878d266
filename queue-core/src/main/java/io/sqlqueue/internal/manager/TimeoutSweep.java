package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.maintenance.PeriodicTask;

/**
 * Fails the attempts this instance runs that ran past their timeout (their handler's, or
 * {@code handlerTimeout}), and interrupts their handlers. It passes every tenth of the
 * shortest timeout (between 10 ms and a second), on the shared scheduler; each failure's
 * write goes to that scheduler on its own, so that one that waits for a row a caller holds
 * keeps the sweep from no other attempt. Stopping waits for a pass under way. Tests step it
 * with {@link #runOnce()}.
 */
public final class TimeoutSweep extends PeriodicTask {

	private static final Logger logger = LoggerFactory.getLogger(TimeoutSweep.class);

	private final TaskScheduler scheduler;

	private final HandlerRegistry handlers;

	private final Duration handlerTimeout;

	private final Collection<Attempt> attempts;

	private final OutcomeRecorder recorder;

	/** @param attempts the attempts this instance holds, read at each pass */
	TimeoutSweep(TaskScheduler scheduler, HandlerRegistry handlers, Duration handlerTimeout,
			Collection<Attempt> attempts, OutcomeRecorder recorder) {
		super(scheduler, interval(handlers, handlerTimeout), "timeout sweep");
		this.scheduler = scheduler;
		this.handlers = handlers;
		this.handlerTimeout = handlerTimeout;
		this.attempts = attempts;
		this.recorder = recorder;
	}

	/** Stops its passes and waits for one under way. */
	@Override
	public void stop() {
		super.stop();
		awaitPass();
	}

	/** A tenth of the shortest timeout, worked out at each pass: handlers may be registered after start. */
	@Override
	protected Duration interval() {
		return interval(this.handlers, this.handlerTimeout);
	}

	private static Duration interval(HandlerRegistry handlers, Duration handlerTimeout) {
		Duration shortest = handlerTimeout;
		for (HandlerDefinition handler : handlers.all()) {
			if (handler.timeout() != null && handler.timeout().compareTo(shortest) < 0) {
				shortest = handler.timeout();
			}
		}
		long millis = Math.max(10, Math.min(1000, shortest.toMillis() / 10));
		return Duration.ofMillis(millis);
	}

	@Override
	protected void runPass() {
		try {
			runOnce();
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue could not sweep timed-out attempts; trying again in {}", interval(), ex);
		}
	}

	/** One pass: settles each attempt past its timeout as failed and hands on its write; returns how many. */
	public int runOnce() {
		int timedOut = 0;
		for (Attempt attempt : this.attempts) {
			Duration timeout = timeoutOf(attempt.handler);
			if (attempt.isRunning() && attempt.runningFor().compareTo(timeout) > 0 && attempt.settle()) {
				timedOut(attempt, new JobTimeoutException(timeout));
				timedOut++;
			}
		}
		return timedOut;
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

	private Duration timeoutOf(HandlerDefinition handler) {
		return (handler.timeout() != null) ? handler.timeout() : this.handlerTimeout;
	}

}
