package io.sqlqueue.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;

import io.sqlqueue.Job;
import io.sqlqueue.JobQueue;

/**
 * Fair turns (docs/flow-control.md#fair-turns) measured, each beside the same queue without
 * them, in one invocation:
 * <ul>
 * <li><b>starvation</b>: one key with {@code --heavy} due jobs, enqueued first, and
 * {@code --light-keys} keys with {@code --light-jobs} each behind it, jobs of
 * {@code --job-millis}, two instances of {@code --workers} workers each: how many of the
 * heavy key's jobs start before the last light job does, against its fair share (each key
 * one start per round: {@code --light-jobs}); then, while the heavy key still saturates the
 * queue, one job of a new light key every 50 ms for {@code --probe-seconds}: the wait from
 * its enqueue's commit to its start. Without fair turns the light jobs wait behind the
 * whole flood: that run stops after {@code --unfair-seconds} and says how many started.
 * <li><b>drain</b>: {@code --drain-jobs} no-op jobs on one instance of {@code --workers}
 * workers, over one key and over {@code --many-keys} keys, fair and not, repetitions
 * interleaved ({@code --reps}), after an untimed warm-up drain of each.
 * </ul>
 * {@code --fair-parts=starvation,drain} (both by default) picks the parts to run.
 * Every run checks that no job ran twice (and the drains that each ran once).
 */
final class FairTurnsWorkload {

	private final Target target;

	private final Options options;

	private final List<String> lines = new ArrayList<>();

	FairTurnsWorkload(Target target, Options options) {
		this.target = target;
		this.options = options;
	}

	void run() {
		if (this.options.parts.contains("starvation")) {
			starvation(true);
			starvation(false);
		}
		if (this.options.parts.contains("drain")) {
			drains();
		}
		System.out.println();
		this.lines.forEach(System.out::println);
	}

	private Map<String, Object> settings(boolean fair) {
		Map<String, Object> settings = new LinkedHashMap<>();
		settings.put("sqlqueue.manager.concurrency", this.options.workers);
		settings.put("spring.datasource.hikari.maximum-pool-size", this.options.workers + 6);
		if (fair) {
			settings.put("sqlqueue.queues.default.fair", "true");
		}
		return settings;
	}

	private void starvation(boolean fair) {
		int heavy = this.options.heavy;
		int light = this.options.lightKeys * this.options.lightJobs;
		int probes = (int) (this.options.probeSeconds * 20);
		int total = heavy + light + probes;
		Executions executions = Executions.expectSleeping(total, this.options.jobMillis);
		try (Instance producer = Instance.producer(this.target, true)) {
			JobQueue jobs = producer.jobs();
			long enqueueStart = System.nanoTime();
			List<Job> chunk = new ArrayList<>();
			for (int i = 0; i < heavy; i++) {
				chunk.add(Job.of(BenchmarkApplication.SLEEP, i).concurrencyKey("heavy"));
				if (chunk.size() == 10_000 || i == heavy - 1) {
					jobs.enqueueAll(chunk);
					chunk.clear();
				}
			}
			for (int job = 0; job < this.options.lightJobs; job++) {
				for (int key = 0; key < this.options.lightKeys; key++) {
					chunk.add(Job.of(BenchmarkApplication.SLEEP, heavy + key * this.options.lightJobs + job)
						.concurrencyKey("light-" + key));
				}
			}
			jobs.enqueueAll(chunk);
			System.out.printf(Locale.ROOT, "FAIR %s: enqueued %d heavy and %d light jobs in %d s%n", label(fair),
					heavy, light, (System.nanoTime() - enqueueStart) / 1_000_000_000L);
			List<Instance> instances = new ArrayList<>();
			try {
				for (int i = 0; i < 2; i++) {
					instances.add(Instance.start(this.target, settings(fair)));
				}
				BooleanSupplier lightDone = allStarted(executions, heavy, light);
				Duration wait = fair ? Duration.ofMinutes(5) : Duration.ofSeconds(this.options.unfairSeconds);
				boolean done = awaitOrTimeout(lightDone, wait);
				int lightStarted = 0;
				long lastLight = 0;
				for (int i = heavy; i < heavy + light; i++) {
					long at = executions.startedNanos(i);
					lightStarted += (at != 0) ? 1 : 0;
					lastLight = Math.max(lastLight, at);
				}
				int heavyBefore = 0;
				int heavyStarted = 0;
				for (int i = 0; i < heavy; i++) {
					long at = executions.startedNanos(i);
					heavyStarted += (at != 0) ? 1 : 0;
					heavyBefore += (at != 0 && (!done || at < lastLight)) ? 1 : 0;
				}
				String starved = String.format(Locale.ROOT,
						"| %s | %s | %,d of %,d | %,d | %.1f |", label(fair),
						done ? "all light jobs started" : "stopped after " + this.options.unfairSeconds + " s",
						lightStarted, light, heavyBefore, heavyBefore / (double) this.options.lightJobs);
				System.out.println("FAIR starvation " + starved);
				this.lines.add(starved);
				probe(jobs, executions, heavy + light, probes, fair);
				Benchmark.require(executions.requireNoneRanTwice(total) > 0, "jobs ran");
				Benchmark.require(heavyStarted < heavy, "the heavy key still saturated the queue");
			}
			finally {
				instances.forEach(Instance::close);
			}
		}
		finally {
			this.target.emptyTable();
		}
	}

	/** One job of a new light key every 50 ms while the heavy key saturates the queue: commit to start. */
	private void probe(JobQueue jobs, Executions executions, int first, int probes, boolean fair) {
		long[] committed = new long[probes];
		long start = System.nanoTime();
		for (int i = 0; i < probes; i++) {
			long due = start + i * 50_000_000L;
			long now = System.nanoTime();
			if (due > now) {
				Benchmark.sleep((due - now) / 1_000_000);
			}
			jobs.enqueue(Job.of(BenchmarkApplication.SLEEP, first + i).concurrencyKey("probe-" + (i % 20)));
			committed[i] = System.nanoTime();
		}
		// Every probe, not the last: probes of different keys may start out of their order.
		awaitOrTimeout(allStarted(executions, first, probes), Duration.ofSeconds(fair ? 30 : 2));
		List<Long> waits = new ArrayList<>();
		for (int i = 0; i < probes; i++) {
			long at = executions.startedNanos(first + i);
			if (at != 0) {
				waits.add((at - committed[i]) / 1_000_000);
			}
		}
		waits.sort(null);
		String line = waits.isEmpty()
				? String.format(Locale.ROOT, "| %s | 0 of %d started | | | |", label(fair), probes)
				: String.format(Locale.ROOT, "| %s | %d of %d started | %d ms | %d ms | %d ms |", label(fair),
						waits.size(), probes, percentile(waits, 50), percentile(waits, 99), waits.get(waits.size() - 1));
		System.out.println("FAIR probe " + line);
		this.lines.add(line);
	}

	private void drains() {
		record Variant(int keys, boolean fair) {
		}
		List<Variant> variants = List.of(new Variant(1, false), new Variant(1, true),
				new Variant(this.options.manyKeys, false), new Variant(this.options.manyKeys, true));
		Map<Variant, List<Double>> rates = new LinkedHashMap<>();
		variants.forEach((variant) -> drain(variant.keys(), variant.fair(), this.options.drainJobs / 5));
		for (int rep = 0; rep < this.options.reps; rep++) {
			for (int i = 0; i < variants.size(); i++) {
				Variant variant = variants.get((i + rep) % variants.size());
				double rate = drain(variant.keys(), variant.fair(), this.options.drainJobs);
				rates.computeIfAbsent(variant, (v) -> new ArrayList<>()).add(rate);
				System.out.printf(Locale.ROOT, "FAIR drain keys=%d %s: %.0f jobs/s%n", variant.keys(), label(variant.fair()),
						rate);
			}
		}
		for (int keys : new int[] { 1, this.options.manyKeys }) {
			List<Double> unfair = rates.get(new Variant(keys, false));
			List<Double> fair = rates.get(new Variant(keys, true));
			String line = String.format(Locale.ROOT, "| %,d key%s | %s | %s | %.2f |", keys, (keys == 1) ? "" : "s",
					spread(unfair), spread(fair), median(fair) / median(unfair));
			System.out.println("FAIR drain " + line);
			this.lines.add(line);
		}
	}

	/** Drains {@code total} no-op jobs spread over {@code keys} keys on one instance; jobs per second. */
	private double drain(int keys, boolean fair, int total) {
		try (Instance producer = Instance.producer(this.target, true);
				Instance worker = Instance.start(this.target, settings(fair))) {
			Executions executions = Executions.expect(total);
			List<Job> all = new ArrayList<>(total);
			for (int i = 0; i < total; i++) {
				all.add(Job.of(BenchmarkApplication.NOOP, i).concurrencyKey("key-" + (i % keys)));
			}
			producer.jobs().enqueueAll(all);
			long start = System.nanoTime();
			awaitOrTimeout(() -> executions.total() >= total, Duration.ofMinutes(10));
			while (this.target.count("status = 'SUCCEEDED'") < total) {
				Benchmark.sleep(5);
			}
			long end = System.nanoTime();
			executions.requireEachRanOnce();
			long first = Long.MAX_VALUE;
			for (int i = 0; i < total; i++) {
				first = Math.min(first, executions.startedNanos(i));
			}
			return total / ((end - Math.max(start, first)) / 1e9);
		}
		finally {
			this.target.emptyTable();
		}
	}

	private static String label(boolean fair) {
		return fair ? "fair turns" : "run order (no fair turns)";
	}

	private static String spread(List<Double> rates) {
		return String.format(Locale.ROOT, "%,.0f (%,.0f–%,.0f)", median(rates),
				rates.stream().mapToDouble(Double::doubleValue).min().orElse(0),
				rates.stream().mapToDouble(Double::doubleValue).max().orElse(0));
	}

	private static double median(List<Double> values) {
		return Comparison.median(values.stream().mapToDouble(Double::doubleValue).sorted().toArray());
	}

	private static long percentile(List<Long> sorted, int percent) {
		return (long) Benchmark.percentile(sorted.stream().mapToDouble(Long::doubleValue).toArray(), percent);
	}

	/** Whether the {@code count} jobs from {@code first} have all started. */
	private static BooleanSupplier allStarted(Executions executions, int first, int count) {
		return () -> {
			for (int i = first; i < first + count; i++) {
				if (executions.startedNanos(i) == 0) {
					return false;
				}
			}
			return true;
		};
	}

	private static boolean awaitOrTimeout(BooleanSupplier condition, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				return false;
			}
			Benchmark.sleep(5);
		}
		return true;
	}

	/** The workload's settings, from the command line's options. */
	record Options(int heavy, int lightKeys, int lightJobs, long jobMillis, int workers, long probeSeconds,
			long unfairSeconds, int drainJobs, int manyKeys, int reps, List<String> parts) {

		static Options parse(Map<String, String> options) {
			return new Options(Integer.parseInt(options.getOrDefault("heavy", "1000000")),
					Integer.parseInt(options.getOrDefault("light-keys", "99")),
					Integer.parseInt(options.getOrDefault("light-jobs", "10")),
					Long.parseLong(options.getOrDefault("job-millis", "10")),
					Integer.parseInt(options.getOrDefault("workers", "8")),
					Long.parseLong(options.getOrDefault("probe-seconds", "20")),
					Long.parseLong(options.getOrDefault("unfair-seconds", "30")),
					Integer.parseInt(options.getOrDefault("drain-jobs", "100000")),
					Integer.parseInt(options.getOrDefault("many-keys", "1000")),
					Integer.parseInt(options.getOrDefault("reps", "3")),
					List.of(options.getOrDefault("fair-parts", "starvation,drain").split(",")));
		}

	}

}
