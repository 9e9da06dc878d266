package io.sqlqueue.test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.sqlqueue.ExpiredJob;
import io.sqlqueue.JobListener;
import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobRecord;
import io.sqlqueue.ReapedJob;

/**
 * Writes down what the queue tells its listener, as short lines such as
 * {@code finished echo succeeded}.
 */
public final class RecordingJobListener implements JobListener {

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final List<Duration> waits = new CopyOnWriteArrayList<>();

	private final Map<String, AtomicInteger> claims = new ConcurrentHashMap<>();

	/** How many claims the Managers made for this queue, whether they took jobs or not. */
	public int claims(String queue) {
		AtomicInteger claims = this.claims.get(queue);
		return (claims != null) ? claims.get() : 0;
	}

	@Override
	public void claimed(String queue, int jobs) {
		this.claims.computeIfAbsent(queue, (name) -> new AtomicInteger()).incrementAndGet();
	}

	@Override
	public void enqueued(String queue, String handler, int jobs) {
		this.events.add("enqueued " + queue + " " + handler + " " + jobs);
	}

	@Override
	public void started(JobRecord job, Duration waited) {
		this.events.add("started " + job.handler());
		this.waits.add(waited);
	}

	@Override
	public void finished(JobRecord job, JobOutcome outcome, Duration took) {
		this.events.add("finished " + job.handler() + " " + outcome.tag());
	}

	@Override
	public void cancelled(String queue, String handler) {
		this.events.add("cancelled " + queue + " " + handler);
	}

	@Override
	public void leaseLost(JobRecord job) {
		this.events.add("lease lost " + job.handler());
	}

	@Override
	public void reaped(ReapedJob job) {
		this.events.add("reaped " + job.handler() + " " + job.outcome());
	}

	@Override
	public void expired(ExpiredJob job) {
		this.events.add("expired " + job.queue() + " " + job.handler());
	}

	public List<String> events() {
		return this.events;
	}

	public List<String> events(String prefix) {
		return this.events.stream().filter((event) -> event.startsWith(prefix)).toList();
	}

	public List<Duration> waits() {
		return this.waits;
	}

}
