package io.sqlqueue.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

import io.sqlqueue.Job;
import io.sqlqueue.internal.manager.Manager;

/**
 * Sustained overload (issue 23): for {@code minutes} intervals, jobs are offered faster than
 * one instance with sqlqueue's defaults runs them, the way web requests enqueue — many
 * threads, one job per transaction ({@code enqueue}), paced together to an offered rate far
 * above the drain. Should those producers fall short of overloading the instance (each
 * single-job commit is slow next to a batched claim, and {@code NOTIFY} serialises commits),
 * a top-up enqueues 1,000 jobs at a time with {@code enqueueAll} whenever the backlog falls
 * below its floor, so the instance never runs dry; the run starts with that floor enqueued.
 * Retention is on and short (a minute by default, pruned every 15 s) so the table's bound
 * shows within the run; the Vacuumer runs at its default interval (autovacuum is off on the
 * measured server). With {@code holdHorizon}, another session holds a {@link HeldHorizon}
 * for the whole run. With {@code --overload-peer=floor} the same load goes to the floor
 * ({@link FloorQueue} at batch 100, 8 workers), which has no retention and no vacuum.
 *
 * <p>
 * Per interval it records the jobs finished, those enqueued, the claim latency (commit of the
 * enqueue to the handler's start, of every 16th job), the backlog, the size of the table and
 * of each index and the dead tuples; it prints a table per interval and the ratios of the
 * last interval to the first, and writes a plot (SVG). The run stops with a backlog left; it
 * is counted only if no job ran twice.
 */
final class Overload {

	private static final int SAMPLE_EVERY = 16;

	private static final int TOP_UP_BATCH = 1_000;

	private static final int MAX_JOBS = 30_000_000;

	private static final double MB = 1024.0 * 1024.0;

	private final Target target;

	private final Options options;

	private final AtomicInteger next = new AtomicInteger();

	private final AtomicLong enqueuedSingly = new AtomicLong();

	private final AtomicLong enqueuedToppedUp = new AtomicLong();

	private final AtomicLong failedEnqueues = new AtomicLong();

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final AtomicLongArray committedNanos;

	private final int capacity;

	Overload(Target target, Options options) {
		if (!target.isPostgres()) {
			throw new IllegalArgumentException("The overload workload samples PostgreSQL's statistics");
		}
		this.target = target;
		this.options = options;
		long offered = (long) options.intervals() * options.interval().toSeconds() * (options.rate() + 40_000L)
				+ options.minBacklog();
		this.capacity = (int) Math.min(MAX_JOBS, offered);
		this.committedNanos = new AtomicLongArray(this.capacity / SAMPLE_EVERY + 1);
	}

	/**
	 * How a run is shaped: its intervals and their length, the producer threads and their
	 * offered rate together, the backlog's floor, the retention, and whether a horizon is held.
	 */
	record Options(boolean floor, int intervals, Duration interval, int producers, int rate, int minBacklog,
			String retention, String prunerInterval, boolean holdHorizon, Path plot) {

		static Options parse(Map<String, String> options) {
			boolean held = options.containsKey("hold-horizon");
			boolean floor = options.getOrDefault("overload-peer", "sqlqueue").equals("floor");
			String plot = "target/overload" + (floor ? "-floor" : "") + (held ? "-held" : "") + ".svg";
			return new Options(floor, Integer.parseInt(options.getOrDefault("minutes", "10")),
					Duration.ofSeconds(Long.parseLong(options.getOrDefault("interval-seconds", "60"))),
					Integer.parseInt(options.getOrDefault("producers", "32")),
					Integer.parseInt(options.getOrDefault("rate", "20000")),
					Integer.parseInt(options.getOrDefault("min-backlog", "20000")),
					options.getOrDefault("retention", "1m"), options.getOrDefault("pruner-interval", "15s"), held,
					Path.of(options.getOrDefault("plot", plot)));
		}

		String name() {
			return this.floor ? "the floor (SKIP LOCKED, batch 100, 8 workers, no retention, no vacuum)"
					: "sqlqueue defaults";
		}

		String label() {
			return (this.floor ? "floor, " : "sqlqueue, ") + (this.holdHorizon ? "held horizon" : "quiet");
		}

		String describe() {
			return String.format(Locale.ROOT,
					"%s; %d x %d s, %d producer threads (one job per transaction) offering %,d jobs/s, backlog kept "
							+ "at >= %,d by batched top-ups%s, %s",
					name(), this.intervals, this.interval.toSeconds(), this.producers, this.rate, this.minBacklog,
					this.floor ? ""
							: ", retention.succeeded=" + this.retention + ", pruner-interval=" + this.prunerInterval,
					this.holdHorizon ? "horizon held (REPEATABLE READ + txid_current())" : "quiet (no horizon held)");
		}

	}

	/** One interval's measurements, the sizes and counts sampled at its end. */
	record Interval(int index, double finishedPerSecond, double enqueuedPerSecond, double toppedUpPerSecond,
			double p50Millis, double p99Millis, int latencySamples, long backlog, long totalBytes, long tableBytes,
			Map<String, Long> indexBytes, long deadTuples, String load) {
	}

	void run() {
		this.target.emptyTable();
		Executions executions = Executions.expect(this.capacity);
		System.out.println("OVERLOAD " + this.options.describe());
		List<Interval> intervals = new ArrayList<>();
		long start;
		HeldHorizon horizon = null;
		List<Thread> threads = new ArrayList<>();
		try (Subject queue = this.options.floor() ? new Floor(this.target, this.options.producers())
				: new SqlQueue(this.target, this.options)) {
			topUp(queue);
			if (this.options.holdHorizon()) {
				horizon = new HeldHorizon(this.target);
				System.out.println("OVERLOAD horizon held");
			}
			start = System.nanoTime();
			long perThreadPeriod = TimeUnit.SECONDS.toNanos(1) * this.options.producers() / this.options.rate();
			for (int p = 0; p < this.options.producers(); p++) {
				Thread thread = new Thread(() -> produce(queue, perThreadPeriod), "overload-producer-" + p);
				thread.start();
				threads.add(thread);
			}
			Thread toppingUp = new Thread(() -> keepBacklog(queue, executions), "overload-top-up");
			toppingUp.start();
			threads.add(toppingUp);
			queue.startWorkers();
			long finishedBefore = 0;
			long singlyBefore = 0;
			long toppedUpBefore = 0;
			long intervalNanos = this.options.interval().toNanos();
			double seconds = this.options.interval().toMillis() / 1000.0;
			for (int i = 0; i < this.options.intervals(); i++) {
				sleepUntil(start + (i + 1) * intervalNanos);
				long finished = executions.total();
				long singly = this.enqueuedSingly.get();
				long toppedUp = this.enqueuedToppedUp.get();
				Interval sample = sample(queue, i, (finished - finishedBefore) / seconds,
						(singly - singlyBefore) / seconds, (toppedUp - toppedUpBefore) / seconds);
				intervals.add(sample);
				System.out.println(String.format(Locale.ROOT,
						"OVERLOAD interval %d: %,.0f finished/s, %,.0f enqueued/s singly, %,.0f topped up/s, "
								+ "backlog %,d, total %.1f MB, table %.1f MB, dead %,d, load %s",
						i + 1, sample.finishedPerSecond(), sample.enqueuedPerSecond(), sample.toppedUpPerSecond(),
						sample.backlog(), sample.totalBytes() / MB, sample.tableBytes() / MB, sample.deadTuples(),
						sample.load()));
				finishedBefore = finished;
				singlyBefore = singly;
				toppedUpBefore = toppedUp;
			}
			this.running.set(false);
			for (Thread thread : threads) {
				thread.join();
			}
			queue.stopWorkers();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		finally {
			this.running.set(false);
			if (horizon != null) {
				horizon.close();
			}
		}
		int enqueued = Math.min(this.next.get(), this.capacity);
		int ran = executions.requireNoneRanTwice(enqueued);
		System.out.println(String.format(Locale.ROOT,
				"OVERLOAD end: %,d jobs numbered, %,d ran (none twice), %,d left in the backlog or not enqueued; "
						+ "%,d enqueue calls failed",
				enqueued, ran, enqueued - ran, this.failedEnqueues.get()));
		List<Interval> withLatency = withLatencies(intervals, executions, start);
		print(withLatency);
		writePlot(withLatency);
		this.target.emptyTable();
	}

	/** The queue under overload, as the producers and the sampler see it. */
	private interface Subject extends AutoCloseable {

		void enqueueOne(int job);

		void enqueueMany(int first, int jobs);

		void startWorkers();

		void stopWorkers();

		/** The table, as a {@code regclass}. */
		String table();

		/** The condition of queued jobs. */
		String queued();

		@Override
		void close();

	}

	/**
	 * sqlqueue with its defaults and a short retention: a producer instance and a worker
	 * instance whose Manager starts when the backlog is in.
	 */
	private static final class SqlQueue implements Subject {

		private final Target target;

		private final Instance producer;

		private final Instance worker;

		SqlQueue(Target target, Options options) {
			this.target = target;
			Map<String, Object> settings = new LinkedHashMap<>();
			settings.put("sqlqueue.retention.succeeded", options.retention());
			settings.put("sqlqueue.maintenance.pruner-interval", options.prunerInterval());
			settings.put("spring.datasource.hikari.data-source-properties.ApplicationName", "bench-overload-worker");
			Map<String, Object> producerSettings = new LinkedHashMap<>();
			producerSettings.put("sqlqueue.manager.enabled", "false");
			producerSettings.put("spring.datasource.hikari.maximum-pool-size", options.producers() + 2);
			producerSettings.put("spring.datasource.hikari.data-source-properties.ApplicationName",
					"bench-overload-producer");
			this.producer = Instance.start(target, producerSettings);
			this.worker = Instance.start(target, settings);
			this.worker.bean(Manager.class).stop();
		}

		@Override
		public void enqueueOne(int job) {
			this.producer.jobs().enqueue(BenchmarkApplication.NOOP, job);
		}

		@Override
		public void enqueueMany(int first, int jobs) {
			List<Job> all = new ArrayList<>(jobs);
			for (int job = first; job < first + jobs; job++) {
				all.add(Job.of(BenchmarkApplication.NOOP, job));
			}
			this.producer.jobs().enqueueAll(all);
		}

		@Override
		public void startWorkers() {
			this.worker.bean(Manager.class).start();
		}

		@Override
		public void stopWorkers() {
			this.worker.bean(Manager.class).stop();
		}

		@Override
		public String table() {
			return this.target.schema() + ".queue_job";
		}

		@Override
		public String queued() {
			return "status = 'QUEUED'";
		}

		@Override
		public void close() {
			this.worker.close();
			this.producer.close();
		}

	}

	/** The floor at batch 100 with 8 workers: no retention, no vacuum. */
	private static final class Floor implements Subject {

		private final FloorQueue floor;

		Floor(Target target, int producers) {
			this.floor = new FloorQueue(target, 100, Comparison.WORKERS, producers);
		}

		@Override
		public void enqueueOne(int job) {
			this.floor.enqueueOne(job);
		}

		@Override
		public void enqueueMany(int first, int jobs) {
			this.floor.enqueue(first, jobs);
		}

		@Override
		public void startWorkers() {
			this.floor.startWorkers();
		}

		@Override
		public void stopWorkers() {
			this.floor.stopWorkers();
		}

		@Override
		public String table() {
			return this.floor.table();
		}

		@Override
		public String queued() {
			return "status = 0";
		}

		@Override
		public void close() {
			this.floor.close();
		}

	}

	private void produce(Subject queue, long period) {
		long due = System.nanoTime();
		while (this.running.get()) {
			int job = this.next.getAndIncrement();
			if (job >= this.capacity) {
				return;
			}
			if (!enqueued(() -> queue.enqueueOne(job))) {
				continue;
			}
			committed(job);
			this.enqueuedSingly.incrementAndGet();
			due += period;
			long wait = due - System.nanoTime();
			if (wait > 0) {
				LockSupport.parkNanos(wait);
			}
			else if (wait < -TimeUnit.SECONDS.toNanos(1)) {
				due = System.nanoTime();
			}
		}
	}

	private void keepBacklog(Subject queue, Executions executions) {
		while (this.running.get()) {
			if (this.next.get() - executions.total() < this.options.minBacklog()) {
				if (!topUpOnce(queue)) {
					return;
				}
			}
			else {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
			}
		}
	}

	private void topUp(Subject queue) {
		while (this.next.get() < this.options.minBacklog()) {
			topUpOnce(queue);
		}
		this.enqueuedToppedUp.set(0);
	}

	private boolean topUpOnce(Subject queue) {
		int first = this.next.getAndAdd(TOP_UP_BATCH);
		if (first + TOP_UP_BATCH > this.capacity) {
			return false;
		}
		if (!enqueued(() -> queue.enqueueMany(first, TOP_UP_BATCH))) {
			return true;
		}
		for (int job = first; job < first + TOP_UP_BATCH; job++) {
			committed(job);
		}
		this.enqueuedToppedUp.addAndGet(TOP_UP_BATCH);
		return true;
	}

	/**
	 * Runs one enqueue; a failure (a connection the database ended, say) is counted and
	 * waited out instead of ending the producer, and the job is left out of the sample.
	 */
	private boolean enqueued(Runnable enqueue) {
		try {
			enqueue.run();
			return true;
		}
		catch (RuntimeException ex) {
			if (this.failedEnqueues.incrementAndGet() == 1) {
				System.out.println("OVERLOAD an enqueue failed (counted, the producer goes on): " + ex);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
			return false;
		}
	}

	private void committed(int job) {
		if (job % SAMPLE_EVERY == 0) {
			this.committedNanos.set(job / SAMPLE_EVERY, System.nanoTime());
		}
	}

	private Interval sample(Subject subject, int index, double finished, double enqueued, double toppedUp) {
		String table = subject.table();
		Map<String, Object> row = this.target.jdbc().queryForMap("""
				SELECT pg_total_relation_size(CAST(? AS regclass)) AS total, pg_relation_size(CAST(? AS regclass)) AS heap,
				    n_dead_tup FROM pg_stat_user_tables WHERE relid = CAST(? AS regclass)""", table, table, table);
		Map<String, Long> indexes = new LinkedHashMap<>();
		this.target.jdbc().query("""
				SELECT c.relname, pg_relation_size(c.oid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
				WHERE i.indrelid = CAST(? AS regclass) ORDER BY c.relname""",
				(rs) -> {
					indexes.put(rs.getString(1), rs.getLong(2));
				}, table);
		Long backlog = this.target.jdbc()
			.queryForObject("SELECT COUNT(*) FROM " + table + " WHERE " + subject.queued(), Long.class);
		return new Interval(index, finished, enqueued, toppedUp, Double.NaN, Double.NaN, 0,
				(backlog != null) ? backlog : 0,
				((Number) row.get("total")).longValue(), ((Number) row.get("heap")).longValue(), indexes,
				((Number) row.get("n_dead_tup")).longValue(), load());
	}

	private List<Interval> withLatencies(List<Interval> intervals, Executions executions, long start) {
		long intervalNanos = this.options.interval().toNanos();
		List<List<Double>> latencies = new ArrayList<>();
		intervals.forEach((interval) -> latencies.add(new ArrayList<>()));
		int jobs = Math.min(this.next.get(), this.capacity);
		for (int job = 0; job < jobs; job += SAMPLE_EVERY) {
			long committed = this.committedNanos.get(job / SAMPLE_EVERY);
			long started = executions.startedNanos(job);
			if (committed == 0 || started == 0 || started < start) {
				continue;
			}
			int index = (int) ((started - start) / intervalNanos);
			if (index < latencies.size()) {
				latencies.get(index).add(Math.max(0, started - committed) / 1_000_000.0);
			}
		}
		List<Interval> result = new ArrayList<>();
		for (Interval interval : intervals) {
			double[] sorted = latencies.get(interval.index()).stream().mapToDouble(Double::doubleValue).toArray();
			Arrays.sort(sorted);
			result.add(new Interval(interval.index(), interval.finishedPerSecond(), interval.enqueuedPerSecond(),
					interval.toppedUpPerSecond(), percentile(sorted, 50), percentile(sorted, 99), sorted.length,
					interval.backlog(), interval.totalBytes(), interval.tableBytes(), interval.indexBytes(),
					interval.deadTuples(), interval.load()));
		}
		return result;
	}

	private void print(List<Interval> intervals) {
		String label = this.options.label();
		System.out.println();
		System.out.println("Overload, " + label + ": " + this.options.describe());
		List<String> indexNames = new ArrayList<>(intervals.get(intervals.size() - 1).indexBytes().keySet());
		StringBuilder header = new StringBuilder("| interval | finished/s | enqueued/s singly | topped up/s | "
				+ "claim p50 ms | claim p99 ms | backlog | total MB | table MB |");
		StringBuilder rule = new StringBuilder("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
		for (String index : indexNames) {
			header.append(' ').append(index).append(" MB |");
			rule.append(" ---: |");
		}
		header.append(" dead tuples | load average |");
		rule.append(" ---: | --- |");
		System.out.println(header);
		System.out.println(rule);
		for (Interval interval : intervals) {
			StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
					"| %d | %,.0f | %,.0f | %,.0f | %.1f | %.1f | %,d | %.1f | %.1f |", interval.index() + 1,
					interval.finishedPerSecond(), interval.enqueuedPerSecond(), interval.toppedUpPerSecond(),
					interval.p50Millis(), interval.p99Millis(), interval.backlog(), interval.totalBytes() / MB,
					interval.tableBytes() / MB));
			for (String index : indexNames) {
				line.append(String.format(Locale.ROOT, " %.1f |", interval.indexBytes().getOrDefault(index, 0L) / MB));
			}
			line.append(String.format(Locale.ROOT, " %,d | %s |", interval.deadTuples(), interval.load()));
			System.out.println(line);
		}
		Interval first = intervals.get(0);
		Interval last = intervals.get(intervals.size() - 1);
		System.out.println();
		System.out.println(String.format(Locale.ROOT,
				"RATIO %s, last interval / first: throughput %.2f, claim p50 %.2f, claim p99 %.2f, total size %.2f, "
						+ "table size %.2f",
				label, last.finishedPerSecond() / first.finishedPerSecond(), last.p50Millis() / first.p50Millis(),
				last.p99Millis() / first.p99Millis(), (double) last.totalBytes() / first.totalBytes(),
				(double) last.tableBytes() / first.tableBytes()));
	}

	private void writePlot(List<Interval> intervals) {
		Svg svg = new Svg("Sustained overload: " + this.options.label(), this.options.describe(), intervals.size(),
				this.options.interval().toSeconds());
		svg.panel("Throughput (jobs/s)",
				List.of(series("finished", "#1f77b4", intervals, Interval::finishedPerSecond),
						series("enqueued singly", "#ff7f0e", intervals, Interval::enqueuedPerSecond),
						series("topped up", "#2ca02c", intervals, Interval::toppedUpPerSecond)));
		svg.panel("Claim latency, enqueue commit to handler start (ms)",
				List.of(series("p50", "#1f77b4", intervals, Interval::p50Millis),
						series("p99", "#d62728", intervals, Interval::p99Millis)));
		List<Svg.Series> sizes = new ArrayList<>();
		sizes.add(series("total", "#000000", intervals, (interval) -> interval.totalBytes() / MB));
		sizes.add(series("table", "#1f77b4", intervals, (interval) -> interval.tableBytes() / MB));
		String[] colors = { "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
				"#17becf" };
		int color = 0;
		long largest = intervals.stream().mapToLong(Interval::totalBytes).max().orElse(0);
		for (String index : intervals.get(intervals.size() - 1).indexBytes().keySet()) {
			if (intervals.stream().mapToLong((interval) -> interval.indexBytes().getOrDefault(index, 0L)).max()
				.orElse(0) * 100 < largest) {
				continue;
			}
			sizes.add(series(index, colors[color++ % colors.length], intervals,
					(interval) -> interval.indexBytes().getOrDefault(index, 0L) / MB));
		}
		svg.panel("Size (MB; indexes under 1% of the total left out)", sizes);
		svg.panel("Backlog and dead tuples",
				List.of(series("queued jobs", "#1f77b4", intervals, (interval) -> (double) interval.backlog()),
						series("dead tuples", "#d62728", intervals, (interval) -> (double) interval.deadTuples())));
		try {
			Path plot = this.options.plot();
			if (plot.getParent() != null) {
				Files.createDirectories(plot.getParent());
			}
			Files.writeString(plot, svg.render());
			System.out.println("OVERLOAD plot written to " + plot);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not write the plot", ex);
		}
	}

	private static Svg.Series series(String name, String color, List<Interval> intervals,
			java.util.function.ToDoubleFunction<Interval> value) {
		return new Svg.Series(name, color, intervals.stream().mapToDouble(value).toArray());
	}

	private static String load() {
		try {
			String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
			return fields[0] + " " + fields[1] + " " + fields[2];
		}
		catch (IOException | RuntimeException ex) {
			return "n/a";
		}
	}

	private static double percentile(double[] sorted, int percent) {
		if (sorted.length == 0) {
			return Double.NaN;
		}
		int index = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
	}

	private static void sleepUntil(long nanos) throws InterruptedException {
		long wait;
		while ((wait = nanos - System.nanoTime()) > 0) {
			TimeUnit.NANOSECONDS.sleep(wait);
		}
	}

}
