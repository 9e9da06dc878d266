package io.sqlqueue.boot.deploy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the handlers of every instance did, shared by all the application contexts of one
 * scenario as the outside world is shared by a fleet: which jobs ran to their end and how
 * often, how many of a queue's jobs ran at once, what a durable job charged and shipped.
 */
final class Ledger {

	private final Map<String, AtomicInteger> finished = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> mostAtOnce = new ConcurrentHashMap<>();

	private final Map<String, String> shipped = new ConcurrentHashMap<>();

	private final AtomicInteger interrupted = new AtomicInteger();

	private final Map<String, AtomicInteger> longJobsRunning = new ConcurrentHashMap<>();

	/** Records that the body of {@code what} ran to its end (an interrupted body records nothing). */
	void finished(String what) {
		this.finished.computeIfAbsent(what, (key) -> new AtomicInteger()).incrementAndGet();
	}

	/** Runs {@code body} as one of the jobs of {@code queue} running now, counting how many run at once. */
	void runningIn(String queue, Body body) throws Exception {
		int now = this.running.computeIfAbsent(queue, (key) -> new AtomicInteger()).incrementAndGet();
		this.mostAtOnce.computeIfAbsent(queue, (key) -> new AtomicInteger()).accumulateAndGet(now, Math::max);
		try {
			body.run();
		}
		finally {
			this.running.get(queue).decrementAndGet();
		}
	}

	/**
	 * Runs the body of a job that outlasts the shutdown timeout on {@code instance}; a stop
	 * interrupts it, and its job is given back to run again.
	 */
	void longJob(String instance, Body body) throws Exception {
		AtomicInteger running = this.longJobsRunning.computeIfAbsent(instance, (key) -> new AtomicInteger());
		running.incrementAndGet();
		try {
			body.run();
		}
		catch (InterruptedException ex) {
			this.interrupted.incrementAndGet();
			throw ex;
		}
		finally {
			running.decrementAndGet();
		}
	}

	int longJobsRunningOn(String instance) {
		AtomicInteger running = this.longJobsRunning.get(instance);
		return (running != null) ? running.get() : 0;
	}

	int timesInterrupted() {
		return this.interrupted.get();
	}

	void shipped(String order, String how) {
		this.shipped.merge(order, how, (first, second) -> first + " and again " + second);
	}

	int timesFinished(String what) {
		AtomicInteger times = this.finished.get(what);
		return (times != null) ? times.get() : 0;
	}

	/** Every job whose body ran to its end more than once. */
	List<String> finishedMoreThanOnce() {
		return this.finished.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().get() > 1)
			.map((entry) -> entry.getKey() + " x" + entry.getValue().get())
			.sorted()
			.toList();
	}

	int mostAtOnce(String queue) {
		AtomicInteger most = this.mostAtOnce.get(queue);
		return (most != null) ? most.get() : 0;
	}

	Map<String, String> shipped() {
		return Map.copyOf(this.shipped);
	}

	@FunctionalInterface
	interface Body {

		void run() throws Exception;

	}

}
