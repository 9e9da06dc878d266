package io.sqlqueue.benchmark;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the handlers of every instance ran in one workload: how often each job (by its
 * number) ran, and when it started. A run is only counted if each job ran exactly once.
 */
final class Executions {

	static volatile Executions current = new Executions(0);

	private final AtomicIntegerArray runs;

	private final AtomicLongArray startedNanos;

	private final java.util.concurrent.atomic.AtomicInteger total = new java.util.concurrent.atomic.AtomicInteger();

	private final long jobMillis;

	Executions(int jobs) {
		this(jobs, 0);
	}

	Executions(int jobs, long jobMillis) {
		this.runs = new AtomicIntegerArray(jobs);
		this.startedNanos = new AtomicLongArray(jobs);
		this.jobMillis = jobMillis;
	}

	static Executions expect(int jobs) {
		current = new Executions(jobs);
		return current;
	}

	/** Expects jobs of {@link BenchmarkApplication#SLEEP} that each take {@code jobMillis}. */
	static Executions expectSleeping(int jobs, long jobMillis) {
		current = new Executions(jobs, jobMillis);
		return current;
	}

	long jobMillis() {
		return this.jobMillis;
	}

	void ran(int job) {
		this.startedNanos.compareAndSet(job, 0, System.nanoTime());
		this.runs.incrementAndGet(job);
		this.total.incrementAndGet();
	}

	int total() {
		return this.total.get();
	}

	long startedNanos(int job) {
		return this.startedNanos.get(job);
	}

	/**
	 * Fails if any of the jobs numbered below {@code upTo} ran more than once, for runs that stop
	 * with a backlog left; returns how many of them ran.
	 */
	int requireNoneRanTwice(int upTo) {
		int ran = 0;
		int duplicated = 0;
		for (int i = 0; i < Math.min(upTo, this.runs.length()); i++) {
			int count = this.runs.get(i);
			ran += (count > 0) ? 1 : 0;
			duplicated += (count > 1) ? 1 : 0;
		}
		if (duplicated > 0) {
			throw new IllegalStateException("Wrong run: " + duplicated + " jobs ran more than once");
		}
		return ran;
	}

	/** Fails unless every job ran exactly once. */
	void requireEachRanOnce() {
		int missing = 0;
		int duplicated = 0;
		for (int i = 0; i < this.runs.length(); i++) {
			int count = this.runs.get(i);
			missing += (count == 0) ? 1 : 0;
			duplicated += (count > 1) ? 1 : 0;
		}
		if (missing > 0 || duplicated > 0) {
			throw new IllegalStateException(
					"Wrong run: " + missing + " jobs never ran and " + duplicated + " ran more than once");
		}
	}

}
