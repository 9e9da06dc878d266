package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several listeners as one. A listener that throws is logged and skipped: what a listener
 * does must never change what happens to a job.
 */
final class CompositeJobListener implements JobListener {

	private static final Logger logger = LoggerFactory.getLogger(CompositeJobListener.class);

	private final List<JobListener> listeners;

	CompositeJobListener(List<JobListener> listeners) {
		this.listeners = listeners;
	}

	@Override
	public void enqueued(String queue, String handler, int jobs) {
		this.listeners.forEach((listener) -> guarded(() -> listener.enqueued(queue, handler, jobs)));
	}

	@Override
	public void claimed(String queue, int jobs) {
		this.listeners.forEach((listener) -> guarded(() -> listener.claimed(queue, jobs)));
	}

	@Override
	public void started(JobRecord job, Duration waited) {
		this.listeners.forEach((listener) -> guarded(() -> listener.started(job, waited)));
	}

	@Override
	public void finished(JobRecord job, JobOutcome outcome, Duration took) {
		this.listeners.forEach((listener) -> guarded(() -> listener.finished(job, outcome, took)));
	}

	@Override
	public void cancelled(String queue, String handler) {
		this.listeners.forEach((listener) -> guarded(() -> listener.cancelled(queue, handler)));
	}

	@Override
	public void expired(ExpiredJob job) {
		this.listeners.forEach((listener) -> guarded(() -> listener.expired(job)));
	}

	@Override
	public void leaseLost(JobRecord job) {
		this.listeners.forEach((listener) -> guarded(() -> listener.leaseLost(job)));
	}

	@Override
	public void reaped(ReapedJob job) {
		this.listeners.forEach((listener) -> guarded(() -> listener.reaped(job)));
	}

	@Override
	public void ticked(String schedule, Instant tick, Duration lag, boolean fired) {
		this.listeners.forEach((listener) -> guarded(() -> listener.ticked(schedule, tick, lag, fired)));
	}

	private static void guarded(Runnable call) {
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			logger.warn("A sqlqueue JobListener failed; the job goes on regardless", ex);
		}
	}

}
