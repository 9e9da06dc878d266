package io.sqlqueue.manager;

import java.util.concurrent.Semaphore;

/**
 * One queue as this instance serves it: its free workers, and whether its last claim
 * stopped only because the workers were full (so a freed worker should claim again).
 */
final class Lane {

	final String queue;

	final int concurrency;

	private final Semaphore freeWorkers;

	private volatile boolean moreWork;

	Lane(String queue, int concurrency) {
		this.queue = queue;
		this.concurrency = concurrency;
		this.freeWorkers = new Semaphore(concurrency);
	}

	int freeWorkers() {
		return this.freeWorkers.availablePermits();
	}

	boolean takeWorker() {
		return this.freeWorkers.tryAcquire();
	}

	/** Returns whether the lane may have more work waiting for this worker. */
	boolean returnWorker() {
		this.freeWorkers.release();
		return this.moreWork;
	}

	void moreWork(boolean moreWork) {
		this.moreWork = moreWork;
	}

	int busyWorkers() {
		return this.concurrency - this.freeWorkers.availablePermits();
	}

}
