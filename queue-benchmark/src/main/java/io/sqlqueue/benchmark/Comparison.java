package io.sqlqueue.benchmark;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * sqlqueue beside its peers, in one run: the floor (a hand-written SKIP LOCKED queue, batch
 * 1, 10 and 100) and db-scheduler, 8 workers each, the same no-op jobs. Each measurement
 * enqueues N jobs with the peer's own batch API (timed: the enqueue rate), then starts the
 * workers, and times from the first job's start until the peer's table says every job is
 * done (the drain rate), counting the CPU the database spent for the peer's connections
 * and the CPU of this JVM over that time. Every peer must run each job exactly once.
 * Repetitions are interleaved (the order rotates), so drift of a shared machine spreads
 * over all peers; each line gives the median, the spread, and the ratio of medians to the
 * floor of the batch the peer is compared with.
 * <p>
 * With {@code --horizon=held} (or {@code quiet,held}, each peer both ways) a separate
 * connection holds the database's horizon for each measurement, from before the enqueue until
 * the drain is done: a {@code REPEATABLE READ} transaction that took its snapshot and an
 * xid, as a long report, {@code pg_dump} or a replication slot does. Nothing that dies after
 * it began can be vacuumed or pruned meanwhile. Those lines carry {@value #HELD}.
 */
final class Comparison {

	static final int WORKERS = 8;

	/** A global concurrency and a rate of the queue, far above what the drain reaches. */
	static final Map<String, Object> QUEUE_LIMITS = Map.of("sqlqueue.queues.default.global-concurrency", 10_000,
			"sqlqueue.queues.default.rate-limit", "10000000/1s");

	/** The queue's limits, and a concurrency per key for the jobs' 100 keys, none binding. */
	static final Map<String, Object> KEY_CONCURRENCY_LIMITS = with(QUEUE_LIMITS,
			Map.of("sqlqueue.queues.default.key-limits[0].keys", "k:*",
					"sqlqueue.queues.default.key-limits[0].concurrency", 10_000));

	/** The queue's limits, and a concurrency and a rate per key for the jobs' 100 keys, none binding. */
	static final Map<String, Object> KEY_LIMITS = with(KEY_CONCURRENCY_LIMITS,
			Map.of("sqlqueue.queues.default.key-limits[0].rate-limit", "10000000/1s"));

	/** Jobs of each peer's untimed warm-up drain, unless {@code --warm-up} says otherwise. */
	static final int WARM_UP_JOBS = 10_000;

	static final String HELD = ", horizon held";

	private final Target target;

	private final List<Measurement> measurements = new ArrayList<>();

	/** Which peers to measure, by a part of their name ({@code --peers=floor,defaults}); all when empty. */
	private final List<String> only;

	/** For each measurement, quiet ({@code false}) and/or with the horizon held ({@code true}). */
	private final List<Boolean> horizons;

	/** Jobs of each peer's untimed warm-up drain(s). */
	private final int warmUpJobs;

	Comparison(Target target, List<String> only, List<Boolean> horizons, int warmUpJobs) {
		this.target = target;
		this.only = only;
		this.horizons = horizons;
		this.warmUpJobs = warmUpJobs;
	}

	/**
	 * The peers measured at this size: all of them for small drains, the batched ones and
	 * db-scheduler for large. db-scheduler at every size because its enqueue rate is the peer
	 * of {@code enqueueAll}'s, and 20,000 jobs enqueue in under half a second: too short to
	 * tell the two apart.
	 */
	private List<Supplier<Peer>> peers(int jobs) {
		List<Supplier<Peer>> peers = new ArrayList<>();
		boolean small = jobs <= 20_000;
		if (small) {
			peers.add(() -> new FloorQueue(this.target, 1, WORKERS));
			peers.add(() -> new FloorQueue(this.target, 10, WORKERS));
		}
		peers.add(() -> new FloorQueue(this.target, 100, WORKERS));
		peers.add(() -> sqlqueue("sqlqueue, defaults", "bench-sqlqueue-defaults", 100, Map.of()));
		// The attempt history's own cost on the drain (docs/operations.md#attempt-history).
		peers.add(() -> sqlqueue("sqlqueue, defaults without attempt history", "bench-sqlqueue-no-history", 100,
				Map.of("sqlqueue.history.attempts", false)));
		// Flow control configured but never binding (issue 14): the limited claim's own cost.
		peers.add(() -> sqlqueue("sqlqueue, queue limits not binding", "bench-sqlqueue-queue-limits", 100,
				QUEUE_LIMITS));
		peers.add(() -> sqlqueue("sqlqueue, queue and key concurrency limits not binding, 100 keys",
				"bench-sqlqueue-key-concurrency", 100, KEY_CONCURRENCY_LIMITS, 100));
		peers.add(() -> sqlqueue("sqlqueue, queue and key limits not binding, 100 keys", "bench-sqlqueue-key-limits",
				100, KEY_LIMITS, 100));
		if (small) {
			if (this.target.isPostgres()) {
				peers.add(() -> sqlqueue("sqlqueue, defaults without NOTIFY", "bench-sqlqueue-no-notify", 100,
						Map.of("sqlqueue.jdbc.notify", false)));
			}
			peers.add(() -> sqlqueue("sqlqueue, batch size 1, completion batch 1", "bench-sqlqueue-batch-1", 1,
					Map.of("sqlqueue.manager.batch-size", 1, "sqlqueue.manager.completion.batch-size", 1)));
		}
		if (this.target.isPostgres()) {
			peers.add(() -> new DbSchedulerPeer(this.target, WORKERS));
		}
		return peers;
	}

	private SqlQueuePeer sqlqueue(String name, String applicationName, int batch, Map<String, Object> extra) {
		return new SqlQueuePeer(this.target, name, applicationName, batch, settings(extra));
	}

	/** The same, its jobs spread over this many concurrency keys. */
	private SqlQueuePeer sqlqueue(String name, String applicationName, int batch, Map<String, Object> extra,
			int keys) {
		return new SqlQueuePeer(this.target, name, applicationName, batch, settings(extra), keys);
	}

	private static Map<String, Object> with(Map<String, Object> base, Map<String, Object> more) {
		Map<String, Object> all = new LinkedHashMap<>(base);
		all.putAll(more);
		return Map.copyOf(all);
	}

	private static Map<String, Object> settings(Map<String, Object> extra) {
		Map<String, Object> settings = new LinkedHashMap<>();
		settings.put("sqlqueue.manager.concurrency", WORKERS);
		settings.put("spring.datasource.hikari.maximum-pool-size", WORKERS + 6);
		settings.putAll(extra);
		return settings;
	}

	void run(List<Integer> sizes, int repetitions) {
		// Untimed: the first run of each peer's code in this JVM pays for compiling it. Past
		// 20,000 jobs in drains of 20,000, so each peer's batch paths run often enough to be
		// compiled before they are timed (code that runs once per batch needs tens of thousands of jobs).
		for (Supplier<Peer> peer : peers(Math.min(this.warmUpJobs, 20_000))) {
			for (int left = this.warmUpJobs; left > 0; left -= 20_000) {
				Measurement warmUp = measure(peer, Math.min(left, 20_000), 0, false);
				if (warmUp == null) {
					break;
				}
				System.out.println("warm-up " + warmUp.line());
			}
		}
		for (int jobs : sizes) {
			List<Supplier<Peer>> peers = peers(jobs);
			for (int repetition = 0; repetition < repetitions; repetition++) {
				List<Supplier<Peer>> order = new ArrayList<>(peers);
				Collections.rotate(order, -repetition);
				for (Supplier<Peer> peer : order) {
					for (boolean held : this.horizons) {
						Measurement measurement = measure(peer, jobs, repetition + 1, held);
						if (measurement == null) {
							continue;
						}
						this.measurements.add(measurement);
						System.out.println(measurement.line());
					}
				}
			}
		}
		printTable(sizes);
	}

	private @Nullable Measurement measure(Supplier<Peer> factory, int jobs, int repetition, boolean held) {
		Executions executions = Executions.expect(jobs);
		try (Peer peer = factory.get()) {
			if (!this.only.isEmpty() && this.only.stream().noneMatch((part) -> peer.name().contains(part))) {
				return null;
			}
			try (HeldHorizon horizon = held ? new HeldHorizon(this.target) : null) {
				return measure(peer, executions, jobs, repetition, held ? HELD : "");
			}
		}
	}

	private Measurement measure(Peer peer, Executions executions, int jobs, int repetition, String suffix) {
		settle();
		long enqueueStart = System.nanoTime();
		peer.enqueue(jobs);
		long enqueueNanos = System.nanoTime() - enqueueStart;
		CpuMeter meter = new CpuMeter(this.target, peer.applicationName());
		AtomicLong started = new AtomicLong();
		Thread watch = new Thread(() -> {
			while (executions.total() == 0) {
				LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
			}
			started.set(System.nanoTime());
			meter.start();
		}, "bench-watch");
		watch.start();
		peer.startWorkers();
		await(() -> executions.total() >= jobs, Duration.ofMinutes(15));
		await(() -> peer.allDone(jobs), Duration.ofMinutes(1));
		long end = System.nanoTime();
		join(watch);
		long[] cpu = meter.stop();
		executions.requireEachRanOnce();
		double seconds = (end - started.get()) / 1e9;
		return new Measurement(peer.name() + suffix, peer.comparedBatch(), jobs, repetition, jobs / seconds,
				jobs / (enqueueNanos / 1e9), cpu[0] * 1000.0 / jobs, cpu[1] * 1000.0 / jobs, cpu[2] * 1000.0 / jobs);
	}

	/**
	 * Lets what setting up the peer started settle: pools filling, a context's background work,
	 * and the JIT compiling the start-up code of a new Spring context, which otherwise runs on
	 * the compiler threads during the timed drain (a long-running application pays it once,
	 * at start-up). Waits until the compilers were idle for a quarter of a second, at most 15 s.
	 */
	private static void settle() {
		LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
		CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
		long compiled = compiler.getTotalCompilationTime();
		while (System.nanoTime() < deadline) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
			long now = compiler.getTotalCompilationTime();
			if (now - compiled < 5) {
				return;
			}
			compiled = now;
		}
	}

	private void printTable(List<Integer> sizes) {
		for (int jobs : sizes) {
			System.out.println();
			System.out.printf(Locale.ROOT, "Drain of %,d jobs, %d workers, medians of the repetitions (min–max)%n",
					jobs, WORKERS);
			System.out.println();
			System.out.println("| system | drain jobs/s | × floor | database CPU ms / 1,000 jobs | × floor | "
					+ "JVM CPU ms / 1,000 jobs | × floor | of which JIT | enqueue jobs/s |");
			System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
			Map<String, List<Measurement>> bySystem = new LinkedHashMap<>();
			for (Measurement measurement : this.measurements) {
				if (measurement.jobs() == jobs) {
					bySystem.computeIfAbsent(measurement.system(), (name) -> new ArrayList<>()).add(measurement);
				}
			}
			for (List<Measurement> runs : bySystem.values()) {
				Measurement first = runs.get(0);
				String suffix = first.system().endsWith(HELD) ? HELD : "";
				List<Measurement> floor = bySystem.getOrDefault("floor, batch " + first.comparedBatch() + suffix,
						List.of());
				System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", first.system(),
						spread(runs, Measurement::drain, "%,.0f"), ratio(runs, floor, Measurement::drain),
						spread(runs, Measurement::databaseCpu, "%.0f"), ratio(runs, floor, Measurement::databaseCpu),
						spread(runs, Measurement::jvmCpu, "%.0f"), ratio(runs, floor, Measurement::jvmCpu),
						spread(runs, Measurement::jit, "%.0f"), spread(runs, Measurement::enqueue, "%,.0f"));
			}
		}
	}

	private static String spread(List<Measurement> runs, java.util.function.ToDoubleFunction<Measurement> value,
			String format) {
		double[] values = runs.stream().mapToDouble(value).sorted().toArray();
		return String.format(Locale.ROOT, format, median(values)) + " (" + String.format(Locale.ROOT, format, values[0])
				+ "–" + String.format(Locale.ROOT, format, values[values.length - 1]) + ")";
	}

	private static String ratio(List<Measurement> runs, List<Measurement> floor,
			java.util.function.ToDoubleFunction<Measurement> value) {
		if (floor.isEmpty()) {
			return "";
		}
		double mine = median(runs.stream().mapToDouble(value).sorted().toArray());
		double theirs = median(floor.stream().mapToDouble(value).sorted().toArray());
		return String.format(Locale.ROOT, "%.2f", mine / theirs);
	}

	static double median(double[] sorted) {
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

	private static void await(BooleanSupplier condition, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Timed out after " + timeout);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
		}
	}

	private static void join(Thread thread) {
		try {
			thread.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * One drain of one peer.
	 * @param drain jobs per second from the first job's start until all were done
	 * @param enqueue jobs per second of the peer's batch enqueue
	 * @param databaseCpu database CPU milliseconds per 1,000 jobs over the drain
	 * @param jvmCpu this JVM's CPU milliseconds per 1,000 jobs over the drain
	 * @param jit milliseconds per 1,000 jobs this JVM's JIT compilers spent over the drain
	 */
	record Measurement(String system, int comparedBatch, int jobs, int repetition, double drain, double enqueue,
			double databaseCpu, double jvmCpu, double jit) {

		String line() {
			return String.format(Locale.ROOT,
					"COMPARE {\"system\":\"%s\",\"jobs\":%d,\"repetition\":%d,\"drainJobsPerSecond\":%.1f,"
							+ "\"enqueueJobsPerSecond\":%.1f,\"databaseCpuMsPer1000\":%.1f,\"jvmCpuMsPer1000\":%.1f,"
							+ "\"jitMsPer1000\":%.1f}",
					this.system, this.jobs, this.repetition, this.drain, this.enqueue, this.databaseCpu, this.jvmCpu,
					this.jit);
		}

	}

}
