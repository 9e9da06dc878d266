package io.sqlqueue.benchmark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sqlqueue.Job;
import io.sqlqueue.internal.manager.Manager;

/**
 * sqlqueue as an application runs it: a producer instance enqueues with {@code enqueueAll},
 * and a worker instance (a Spring Boot context with the starter and a {@code @JobHandler}
 * bean, metrics on) drains. The worker's context starts first, and its Manager is stopped
 * until the jobs are in: "workers started" is the Manager's start, as for the other peers,
 * and the context's own start-up does not share the two cores with the drain.
 */
final class SqlQueuePeer implements Peer {

	private static final int ENQUEUE_BATCH = 500;

	private final Target target;

	private final String name;

	private final String applicationName;

	private final int comparedBatch;

	private final Map<String, Object> settings;

	/** How many concurrency keys the jobs spread over ({@code k:0}, {@code k:1}, …); 0 for none. */
	private final int keys;

	private final Instance producer;

	private final Instance worker;

	SqlQueuePeer(Target target, String name, String applicationName, int comparedBatch,
			Map<String, Object> settings) {
		this(target, name, applicationName, comparedBatch, settings, 0);
	}

	SqlQueuePeer(Target target, String name, String applicationName, int comparedBatch, Map<String, Object> settings,
			int keys) {
		this.keys = keys;
		this.target = target;
		this.name = name;
		this.applicationName = applicationName;
		this.comparedBatch = comparedBatch;
		this.settings = new LinkedHashMap<>(settings);
		this.settings.put("spring.datasource.hikari.data-source-properties.ApplicationName", applicationName);
		this.producer = Instance.producer(target, true);
		this.worker = Instance.start(target, this.settings);
		this.worker.bean(Manager.class).stop();
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public int comparedBatch() {
		return this.comparedBatch;
	}

	@Override
	public String applicationName() {
		return this.applicationName;
	}

	@Override
	public void enqueue(int jobs) {
		List<Job> batch = new ArrayList<>(ENQUEUE_BATCH);
		for (int i = 0; i < jobs; i++) {
			Job job = Job.of(BenchmarkApplication.NOOP, i);
			batch.add((this.keys > 0) ? job.concurrencyKey("k:" + (i % this.keys)) : job);
			if (batch.size() == ENQUEUE_BATCH || i == jobs - 1) {
				this.producer.jobs().enqueueAll(batch);
				batch.clear();
			}
		}
	}

	@Override
	public void startWorkers() {
		this.worker.bean(Manager.class).start();
	}

	@Override
	public boolean allDone(int jobs) {
		return this.target.count("status = 'SUCCEEDED'") == jobs;
	}

	@Override
	public void close() {
		this.worker.close();
		this.producer.close();
		this.target.emptyTable();
	}

}
