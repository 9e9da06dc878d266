package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * One queue as this instance serves it: the claimed jobs waiting for a worker, and at most
 * {@code concurrency} workers taking them in order.
 * <p>
 * Besides a job per worker, it holds claimed jobs ready for the next free worker, so that
 * a worker rarely waits for a claim's round trip — but only as many as its workers finish
 * within 100 ms at the pace they have been going (and never more than
 * {@code prefetch}). Fast jobs are claimed in large batches; slow jobs are claimed only for
 * free workers and stay in the table, where another instance's idle worker can take them
 * and their leases do not run while they wait here.
 */
final class Lane {

	final String queue;

	final int concurrency;

	/** How far ahead of its workers a lane claims. */
	static final long PREFETCH_HORIZON_NANOS = 100_000_000L;

	private final int prefetch;

	/** The average time of an attempt, smoothed; unknown (no prefetch) until one ran. */
	private volatile double averageRunNanos = Double.NaN;

	private final Queue<Attempt> waiting = new ConcurrentLinkedQueue<>();

	private final Semaphore workers;

	private final AtomicInteger held = new AtomicInteger();

	private volatile boolean moreWork;

	/** Wake-ups for this queue (new work) so far: a claim that saw one come in claims again. */
	private final AtomicLong wakeUps = new AtomicLong();

	/** When (by {@link System#nanoTime()}) a rate limit that held this lane's jobs back has room again. */
	private volatile long rateRoomAt = Long.MAX_VALUE;

	private volatile boolean heldByConcurrency;

	private volatile boolean limited;

	Lane(String queue, int concurrency, int prefetch) {
		this.queue = queue;
		this.concurrency = concurrency;
		this.prefetch = prefetch;
		this.workers = new Semaphore(concurrency);
	}

	/** The most claimed jobs the lane holds now: its workers' and those waiting for them. */
	int capacity() {
		double average = this.averageRunNanos;
		if (Double.isNaN(average)) {
			return this.concurrency;
		}
		double ahead = this.concurrency * (PREFETCH_HORIZON_NANOS / Math.max(average, 1.0));
		return this.concurrency + (int) Math.min(this.prefetch, ahead);
	}

	/** How many more claimed jobs the lane can take. */
	int room() {
		return capacity() - this.held.get();
	}

	/**
	 * Takes room for up to {@code most} jobs about to be claimed; returns how many (zero when
	 * full). Several threads may claim for one lane at once: each claims only the room it took.
	 */
	int reserve(int most) {
		while (true) {
			int held = this.held.get();
			int room = capacity() - held;
			if (room <= 0) {
				return 0;
			}
			int taken = Math.min(most, room);
			if (this.held.compareAndSet(held, held + taken)) {
				return taken;
			}
		}
	}

	/** Gives back room a claim took but did not fill. */
	void unreserve(int jobs) {
		this.held.addAndGet(-jobs);
	}

	/** An attempt of this lane ran for this long. Racy on purpose: a lost sample only blurs the estimate. */
	void ran(long nanos) {
		double average = this.averageRunNanos;
		this.averageRunNanos = Double.isNaN(average) ? nanos : average * 0.9 + nanos * 0.1;
	}

	/** Queues a claimed job, for which room was {@link #reserve reserved}, for the next free worker. */
	void add(Attempt attempt) {
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

	/** New work came for this queue. */
	void wokenUp() {
		this.wakeUps.incrementAndGet();
	}

	/** How many times new work came for this queue so far. */
	long wakeUps() {
		return this.wakeUps.get();
	}

	/** Whether the last claim stopped only because the lane was full. */
	boolean moreWork() {
		return this.moreWork;
	}

	void moreWork(boolean moreWork) {
		this.moreWork = moreWork;
	}

	/**
	 * What the last claim said of the queue's limits (docs/flow-control.md): whether it has
	 * any, and what held due jobs back: a rate limit with room again after {@code rateRoomIn}
	 * ({@code null}: none), and whether a limit on running jobs.
	 */
	void heldBack(boolean limited, @Nullable Duration rateRoomIn, boolean byConcurrency) {
		this.limited = limited;
		this.rateRoomAt = (rateRoomIn != null) ? System.nanoTime() + rateRoomIn.toNanos() : Long.MAX_VALUE;
		this.heldByConcurrency = byConcurrency;
	}

	/** Whether the queue had limits at the last claim: its claims take turns across instances. */
	boolean limited() {
		return this.limited;
	}

	/** How long until a rate limit that held jobs back has room again; {@code null} when none held any. */
	@Nullable Duration untilRateRoom() {
		long at = this.rateRoomAt;
		return (at == Long.MAX_VALUE) ? null : Duration.ofNanos(Math.max(0, at - System.nanoTime()));
	}

	/** Whether a limit on running jobs held jobs back at the last claim, so that a job that ends may free room. */
	boolean heldByConcurrency() {
		return this.heldByConcurrency;
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
