package io.sqlqueue;

import java.time.Duration;
import java.util.List;

import io.sqlqueue.store.ReapedJob;

/**
 * Several listeners as one.
 */
final class CompositeJobListener implements JobListener {

	private final List<JobListener> listeners;

	CompositeJobListener(List<JobListener> listeners) {
		this.listeners = listeners;
	}

	@Override
	public void enqueued(String queue, String handler, int jobs) {
		this.listeners.forEach((listener) -> listener.enqueued(queue, handler, jobs));
	}

	@Override
	public void claimed(String queue, int jobs) {
		this.listeners.forEach((listener) -> listener.claimed(queue, jobs));
	}

	@Override
	public void started(JobRecord job, Duration waited) {
		this.listeners.forEach((listener) -> listener.started(job, waited));
	}

	@Override
	public void finished(JobRecord job, JobOutcome outcome, Duration took) {
		this.listeners.forEach((listener) -> listener.finished(job, outcome, took));
	}

	@Override
	public void cancelled(String queue, String handler) {
		this.listeners.forEach((listener) -> listener.cancelled(queue, handler));
	}

	@Override
	public void leaseLost(JobRecord job) {
		this.listeners.forEach((listener) -> listener.leaseLost(job));
	}

	@Override
	public void reaped(ReapedJob job) {
		this.listeners.forEach((listener) -> listener.reaped(job));
	}

}
