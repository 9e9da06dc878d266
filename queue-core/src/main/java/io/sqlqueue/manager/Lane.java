package io.sqlqueue.manager;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * One queue as this instance serves it: the claimed jobs waiting for a worker, and at most
 * {@code concurrency} workers taking them in order. It holds at most
 * {@code concurrency + prefetch} claimed jobs, so a worker that finishes finds its next job
 * without waiting for a claim.
 */
final class Lane {

	final String queue;

	final int concurrency;

	private final int capacity;

	private final Queue<Attempt> waiting = new ConcurrentLinkedQueue<>();

	private final Semaphore workers;

	private final AtomicInteger held = new AtomicInteger();

	private volatile boolean moreWork;

	Lane(String queue, int concurrency, int prefetch) {
		this.queue = queue;
		this.concurrency = concurrency;
		this.capacity = concurrency + prefetch;
		this.workers = new Semaphore(concurrency);
	}

	/** How many more claimed jobs the lane can take. */
	int room() {
		return this.capacity - this.held.get();
	}

	/** Queues a claimed job for the next free worker. */
	void add(Attempt attempt) {
		this.held.incrementAndGet();
		this.waiting.add(attempt);
	}

	/** The next job for a worker of this lane, or {@code null} when none waits. */
	@Nullable Attempt next() {
		return this.waiting.poll();
	}

	boolean hasWaiting() {
		return !this.waiting.isEmpty();
	}

	/** A claimed job left the lane (it ran, or was given back). */
	void done() {
		this.held.decrementAndGet();
	}

	boolean takeWorker() {
		return this.workers.tryAcquire();
	}

	void returnWorker() {
		this.workers.release();
	}

	/** Whether the last claim stopped only because the lane was full. */
	boolean moreWork() {
		return this.moreWork;
	}

	void moreWork(boolean moreWork) {
		this.moreWork = moreWork;
	}

	int busyWorkers() {
		return this.concurrency - this.workers.availablePermits();
	}

	/** Takes every waiting job out of the lane (at shutdown, or when no worker can be had). */
	List<Attempt> drain() {
		List<Attempt> drained = new ArrayList<>();
		for (Attempt attempt = this.waiting.poll(); attempt != null; attempt = this.waiting.poll()) {
			drained.add(attempt);
		}
		return drained;
	}

}
