package io.sqlqueue.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import io.sqlqueue.Job;
import io.sqlqueue.JobQueue;
import io.sqlqueue.flow.RateLimit;

/**
 * Measures the starter end to end, the way an application uses it: instances are Spring
 * Boot contexts with a {@code @JobHandler} bean, each with its own pool, Manager and
 * workers. Every run checks its own result (each job ran exactly once, none left behind),
 * so a fast wrong run cannot pass as fast. Prints one {@code RESULT} line per measurement
 * and a Markdown table at the end.
 *
 * <pre>
 * java -jar queue-benchmark.jar [--url=jdbc:postgresql://127.0.0.1:5432/test] [--user=postgres] [--password=]
 *     [--quick] [--workloads=compare,enqueue,drain,latency,notify-enqueue,scaleout,soak,ratelimit] [--jobs=50000] [--soak-seconds=600]
 *     [--rate=2000] [--sizes=20000,200000] [--reps=3] [--peers=floor,defaults] [--limit=200/1s] [--minutes=1]
 *     [--schema=sqlqueue_bench] [--horizon=quiet,held] [--warm-up=10000] [--threads=64] [--seconds=15]
 * java -jar queue-benchmark.jar --workloads=overload [--overload-peer=sqlqueue|floor] [--minutes=10] [--hold-horizon]
 *     [--interval-seconds=60] [--producers=32] [--rate=20000] [--min-backlog=20000] [--retention=1m]
 *     [--pruner-interval=15s] [--plot=target/overload.svg]
 * java -jar queue-benchmark.jar --workloads=fairness [--heavy=1000000] [--light-keys=99] [--light-jobs=10]
 *     [--job-millis=10] [--workers=8] [--probe-seconds=20] [--unfair-seconds=30] [--drain-jobs=100000]
 *     [--many-keys=1000] [--reps=3] [--fair-parts=starvation,drain]
 * </pre>
 */
public final class Benchmark {

	private final Target target;

	private final boolean quick;

	private final int jobs;

	private final List<Result> results = new ArrayList<>();

	private Benchmark(Target target, boolean quick, int jobs) {
		this.target = target;
		this.quick = quick;
		this.jobs = jobs;
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> options = options(args);
		boolean quick = options.containsKey("quick");
		String url = options.getOrDefault("url", "jdbc:postgresql://127.0.0.1:5432/test");
		String schema = url.startsWith("jdbc:postgresql:") ? options.getOrDefault("schema", "sqlqueue_bench") : null;
		Target target = new Target(url, options.getOrDefault("user", url.contains("postgresql") ? "postgres" : "sa"),
				options.getOrDefault("password", ""), schema);
		int jobs = Integer.parseInt(options.getOrDefault("jobs", quick ? "10000" : "50000"));
		Benchmark benchmark = new Benchmark(target, quick, jobs);
		List<String> workloads = Arrays
			.asList(options.getOrDefault("workloads", "compare,latency").split(","));
		System.out.println("# sqlqueue benchmark on " + target.settings() + "; " + Runtime.getRuntime()
			.availableProcessors() + " cores, Java " + System.getProperty("java.version") + (quick ? ", quick" : ""));
		benchmark.prepare();
		if (workloads.contains("compare")) {
			List<Integer> sizes = Arrays.stream(options.getOrDefault("sizes", "20000,200000").split(","))
				.map(Integer::valueOf)
				.toList();
			List<String> peers = options.containsKey("peers") ? List.of(options.get("peers").split(",")) : List.of();
			List<Boolean> horizons = Arrays.stream(options.getOrDefault("horizon", "quiet").split(","))
				.map((horizon) -> switch (horizon) {
					case "quiet" -> false;
					case "held" -> true;
					default -> throw new IllegalArgumentException("--horizon takes quiet and/or held: " + horizon);
				})
				.toList();
			int warmUp = Integer.parseInt(options.getOrDefault("warm-up", Integer.toString(Comparison.WARM_UP_JOBS)));
			new Comparison(target, peers, horizons, warmUp).run(sizes,
					Integer.parseInt(options.getOrDefault("reps", "3")));
		}
		if (workloads.contains("enqueue")) {
			benchmark.enqueue();
		}
		if (workloads.contains("drain")) {
			benchmark.drain();
		}
		if (workloads.contains("latency")) {
			benchmark.latency();
		}
		if (workloads.contains("notify-enqueue")) {
			benchmark.notifyEnqueue(Integer.parseInt(options.getOrDefault("threads", "64")),
					Duration.ofSeconds(Long.parseLong(options.getOrDefault("seconds", quick ? "5" : "15"))),
					Integer.parseInt(options.getOrDefault("reps", "3")));
		}
		if (workloads.contains("scaleout")) {
			benchmark.scaleOut();
		}
		if (workloads.contains("ratelimit")) {
			RateLimit limit = RateLimit.parse(options.getOrDefault("limit", "200/1s"));
			Duration over = Duration.ofMinutes(Long.parseLong(options.getOrDefault("minutes", "1")));
			benchmark.rateLimited(limit, over, false);
			benchmark.rateLimited(limit, over, true);
		}
		if (workloads.contains("stats")) {
			new StatsCounts(target, Long.parseLong(options.getOrDefault("finished", "10000000")),
					Long.parseLong(options.getOrDefault("queued", "1000000")),
					Integer.parseInt(options.getOrDefault("reps", "10"))).run();
		}
		if (workloads.contains("fairness")) {
			new FairTurnsWorkload(target, FairTurnsWorkload.Options.parse(options)).run();
		}
		if (workloads.contains("overload")) {
			new Overload(target, Overload.Options.parse(options)).run();
		}
		if (workloads.contains("soak")) {
			int seconds = Integer.parseInt(options.getOrDefault("soak-seconds", quick ? "60" : "600"));
			benchmark.soak(Duration.ofSeconds(seconds), Integer.parseInt(options.getOrDefault("rate", "2000")));
		}
		benchmark.printTable();
	}

	/** Creates the table anew (a throw-away instance migrates it). */
	private void prepare() {
		this.target.drop();
		try (Instance instance = Instance.producer(this.target, false)) {
			this.target.emptyTable();
		}
	}

	private void enqueue() {
		int single = this.quick ? 2_000 : 10_000;
		try (Instance producer = Instance.producer(this.target, true)) {
			JobQueue queue = producer.jobs();
			long start = System.nanoTime();
			for (int i = 0; i < single; i++) {
				queue.enqueue(BenchmarkApplication.NOOP, i);
			}
			record("enqueue", "one at a time", single, System.nanoTime() - start);
			this.target.emptyTable();
			List<Job> batch = new ArrayList<>();
			start = System.nanoTime();
			for (int i = 0; i < this.jobs; i++) {
				batch.add(Job.of(BenchmarkApplication.NOOP, i));
				if (batch.size() == 1000) {
					queue.enqueueAll(batch);
					batch.clear();
				}
			}
			queue.enqueueAll(batch);
			record("enqueue", "enqueueAll, 1000 per call", this.jobs, System.nanoTime() - start);
			require(this.target.count("status = 'QUEUED'") == this.jobs, "every enqueued job is queued");
		}
		this.target.emptyTable();
	}

	private void drain() {
		for (int concurrency : new int[] { 1, 8, 32 }) {
			for (int batch : new int[] { 1, 10, 100 }) {
				drainWith(1, concurrency, batch, "drain");
			}
		}
		drainWith(1, 8, -1, "drain, default settings");
	}

	private void scaleOut() {
		for (int instances : new int[] { 1, 2, 4 }) {
			drainWith(instances, 8, -1, "scale-out, " + instances + " instance" + ((instances > 1) ? "s" : ""));
		}
	}

	/** Enqueues the jobs in one transaction, then times how long the instances take to finish them. */
	private void drainWith(int instances, int concurrency, int batch, String workload) {
		int total = (concurrency == 1 && batch == 1) ? Math.min(this.jobs, 10_000) : this.jobs;
		Map<String, Object> settings = new LinkedHashMap<>();
		settings.put("sqlqueue.manager.concurrency", concurrency);
		settings.put("spring.datasource.hikari.maximum-pool-size", concurrency + 6);
		if (batch > 0) {
			settings.put("sqlqueue.manager.batch-size", batch);
		}
		List<Instance> workers = new ArrayList<>();
		try (Instance producer = Instance.producer(this.target, true)) {
			for (int i = 0; i < instances; i++) {
				workers.add(Instance.start(this.target, settings));
			}
			Executions executions = Executions.expect(total);
			List<Job> all = new ArrayList<>(total);
			for (int i = 0; i < total; i++) {
				all.add(Job.of(BenchmarkApplication.NOOP, i));
			}
			long start = System.nanoTime();
			producer.jobs().enqueueAll(all);
			long committed = System.nanoTime();
			await(() -> executions.total() >= total, Duration.ofMinutes(10));
			await(() -> this.target.count("status = 'SUCCEEDED'") == total, Duration.ofMinutes(1));
			long end = System.nanoTime();
			executions.requireEachRanOnce();
			String label = workload + ((batch > 0) ? ", batch " + batch : "") + ", concurrency " + concurrency;
			record(label, "enqueue of " + total + " took " + millis(committed - start) + " ms", total,
					end - committed);
		}
		finally {
			workers.forEach(Instance::close);
			this.target.emptyTable();
		}
	}

	/** 500 jobs, one every 10 ms, into idle workers: from commit of the enqueue to the handler's start. */
	private void latency() {
		latencyWith(false, "pickup latency, polling only (poll-interval 1s)");
		if (this.target.isPostgres()) {
			latencyWith(true, "pickup latency, LISTEN/NOTIFY wake-ups");
		}
	}

	private void latencyWith(boolean notify, String workload) {
		int total = 500;
		try (Instance worker = Instance.start(this.target, Map.of("sqlqueue.jdbc.notify", String.valueOf(notify)));
				Instance producer = Instance.producer(this.target, notify)) {
			Executions executions = Executions.expect(total);
			long[] enqueued = new long[total];
			sleep(1500);
			for (int i = 0; i < total; i++) {
				producer.jobs().enqueue(BenchmarkApplication.NOOP, i);
				enqueued[i] = System.nanoTime();
				sleep(10);
			}
			await(() -> executions.total() >= total, Duration.ofMinutes(2));
			executions.requireEachRanOnce();
			double[] latencies = new double[total];
			for (int i = 0; i < total; i++) {
				latencies[i] = Math.max(0, executions.startedNanos(i) - enqueued[i]) / 1_000_000.0;
			}
			Arrays.sort(latencies);
			Result result = new Result(workload, "p50 " + fmt(percentile(latencies, 50)) + " ms, p99 "
					+ fmt(percentile(latencies, 99)) + " ms, max " + fmt(latencies[total - 1]) + " ms", total, 0,
					Double.NaN);
			this.results.add(result);
			System.out.println(result.line());
		}
		finally {
			this.target.emptyTable();
		}
	}

	/**
	 * Many concurrent enqueuing transactions, one job each, as web requests enqueue: {@code threads}
	 * threads for {@code duration}, with {@code sqlqueue.jdbc.notify} off and on alternately
	 * ({@code reps} times each), while another instance listens. Prints both rates and their ratio
	 * per repetition and over all: {@code NOTIFY} must not serialise the enqueuing commits.
	 */
	private void notifyEnqueue(int threads, Duration duration, int reps) {
		if (!this.target.isPostgres()) {
			return;
		}
		double[] totals = new double[2];
		long[] jobs = new long[2];
		try (Instance listener = Instance.producer(this.target, true)) {
			enqueueConcurrently(threads, Duration.ofSeconds(2), false);
			for (int rep = 1; rep <= reps; rep++) {
				double[] rates = new double[2];
				for (int on = 0; on < 2; on++) {
					long[] counted = enqueueConcurrently(threads, duration, on == 1);
					rates[on] = counted[0] / (counted[1] / 1_000_000_000.0);
					totals[on] += counted[1] / 1_000_000_000.0;
					jobs[on] += counted[0];
					record("notify-enqueue, " + threads + " threads, NOTIFY " + ((on == 1) ? "on" : "off") + ", rep "
							+ rep, "one job per transaction", (int) counted[0], counted[1]);
				}
				System.out.println(String.format(Locale.ROOT,
						"NOTIFY-ENQUEUE rep %d: off %.0f/s, on %.0f/s, on/off %.3f", rep, rates[0], rates[1],
						rates[1] / rates[0]));
			}
		}
		double off = jobs[0] / totals[0];
		double on = jobs[1] / totals[1];
		Result result = new Result("notify-enqueue, " + threads + " threads, " + reps + " reps of " + duration.toSeconds()
				+ " s each", String.format(Locale.ROOT, "off %.0f/s, on %.0f/s: on/off %.3f", off, on, on / off),
				(int) jobs[1], totals[1], on);
		this.results.add(result);
		System.out.println(result.line());
	}

	/** Enqueues one job per transaction from {@code threads} threads for {@code duration}: jobs and nanoseconds. */
	private long[] enqueueConcurrently(int threads, Duration duration, boolean notify) {
		try (Instance producer = Instance.start(this.target, Map.of("sqlqueue.manager.enabled", "false",
				"sqlqueue.jdbc.notify", String.valueOf(notify), "spring.datasource.hikari.maximum-pool-size",
				threads + 4))) {
			JobQueue queue = producer.jobs();
			AtomicLong enqueued = new AtomicLong();
			CountDownLatch ready = new CountDownLatch(threads);
			AtomicLong until = new AtomicLong(Long.MAX_VALUE);
			List<Thread> running = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				Thread thread = new Thread(() -> {
					queue.enqueue(BenchmarkApplication.NOOP, -1);
					ready.countDown();
					while (System.nanoTime() < until.get()) {
						queue.enqueue(BenchmarkApplication.NOOP, 0);
						enqueued.incrementAndGet();
					}
				}, "notify-enqueue-" + t);
				thread.start();
				running.add(thread);
			}
			try {
				ready.await();
				long start = System.nanoTime();
				long before = enqueued.get();
				until.set(start + duration.toNanos());
				for (Thread thread : running) {
					thread.join();
				}
				long end = System.nanoTime();
				return new long[] { enqueued.get() - before, end - start };
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		finally {
			this.target.emptyTable();
		}
	}

	/**
	 * A backlog under a binding rate limit (issue 14), on two instances: the starts counted over
	 * {@code over} from the first, against what the limit allows in that time. The limit is the
	 * queue's, or with {@code perKey} that of the one key every job has.
	 */
	private void rateLimited(RateLimit limit, Duration over, boolean perKey) {
		double allowed = (double) limit.starts() * over.toMillis() / limit.periodMillis();
		int total = (int) (allowed * 1.2) + limit.starts();
		Map<String, Object> settings = new LinkedHashMap<>();
		if (perKey) {
			settings.put("sqlqueue.queues.default.key-limits[0].keys", "api");
			settings.put("sqlqueue.queues.default.key-limits[0].rate-limit", limit.toString());
		}
		else {
			settings.put("sqlqueue.queues.default.rate-limit", limit.toString());
		}
		try (Instance producer = Instance.producer(this.target, true);
				Instance one = Instance.start(this.target, settings);
				Instance two = Instance.start(this.target, settings)) {
			Executions executions = Executions.expect(total);
			List<Job> all = new ArrayList<>(total);
			for (int i = 0; i < total; i++) {
				Job job = Job.of(BenchmarkApplication.NOOP, i);
				all.add(perKey ? job.concurrencyKey("api") : job);
			}
			producer.jobs().enqueueAll(all);
			await(() -> executions.total() > 0, Duration.ofMinutes(1));
			sleep(over.toMillis() + 2_000);
			long first = Long.MAX_VALUE;
			for (int i = 0; i < total; i++) {
				long started = executions.startedNanos(i);
				first = (started != 0) ? Math.min(first, started) : first;
			}
			long end = first + over.toNanos();
			int started = 0;
			for (int i = 0; i < total; i++) {
				long at = executions.startedNanos(i);
				started += (at != 0 && at < end) ? 1 : 0;
			}
			require(started < total, "the backlog outlasted the measurement");
			String workload = "rate limit " + limit + (perKey ? " of a key" : " of the queue") + ", 2 instances";
			Result result = new Result(workload, String.format(Locale.ROOT,
					"%d starts in the first %d s, the limit allows %.0f: %.3f of the limit", started, over.toSeconds(),
					allowed, started / allowed), started, over.toSeconds(), started / (double) over.toSeconds());
			this.results.add(result);
			System.out.println(result.line());
		}
		finally {
			this.target.emptyTable();
		}
	}

	/** A fixed rate for a while, sampling the table: with retention on, it must stay flat. */
	private void soak(Duration duration, int rate) {
		int total = (int) (duration.toSeconds() * rate);
		Map<String, Object> settings = Map.of("sqlqueue.retention.succeeded", "30s",
				"sqlqueue.maintenance.pruner-interval", "5s", "sqlqueue.maintenance.vacuum-interval", "10s");
		try (Instance worker = Instance.start(this.target, settings);
				Instance producer = Instance.producer(this.target, true)) {
			Executions executions = Executions.expect(total);
			long start = System.nanoTime();
			long nextSample = start;
			int perTick = Math.max(1, rate / 100);
			List<Job> tick = new ArrayList<>(perTick);
			for (int i = 0; i < total;) {
				tick.clear();
				for (int j = 0; j < perTick && i < total; j++, i++) {
					tick.add(Job.of(BenchmarkApplication.NOOP, i));
				}
				producer.jobs().enqueueAll(tick);
				long due = start + (long) ((double) i / rate * 1_000_000_000L);
				long now = System.nanoTime();
				if (now >= nextSample) {
					System.out.println("SOAK t=" + millis(now - start) / 1000 + "s ran=" + executions.total() + " "
							+ this.target.tableSample());
					nextSample = now + TimeUnit.SECONDS.toNanos(5);
				}
				if (due > now) {
					sleep((due - now) / 1_000_000);
				}
			}
			long enqueued = System.nanoTime();
			await(() -> executions.total() >= total, Duration.ofMinutes(5));
			executions.requireEachRanOnce();
			require(this.target.count("status IN ('QUEUED', 'RUNNING')") == 0, "no job left behind");
			System.out.println("SOAK end " + this.target.tableSample());
			record("soak at " + rate + " jobs/s for " + duration.toSeconds() + " s",
					"final table " + this.target.tableSample(), total, enqueued - start);
		}
		finally {
			this.target.emptyTable();
		}
	}

	private void record(String workload, String note, int jobs, long nanos) {
		double seconds = nanos / 1_000_000_000.0;
		Result result = new Result(workload, note, jobs, seconds, jobs / seconds);
		this.results.add(result);
		System.out.println(result.line());
	}

	private void printTable() {
		System.out.println();
		System.out.println("| workload | jobs | seconds | jobs/s | notes |");
		System.out.println("| --- | ---: | ---: | ---: | --- |");
		for (Result result : this.results) {
			System.out.println("| " + result.workload() + " | " + result.jobs() + " | " + fmt(result.seconds()) + " | "
					+ (Double.isNaN(result.perSecond()) ? "" : String.format(Locale.ROOT, "%,.0f", result.perSecond()))
					+ " | " + result.note() + " |");
		}
	}

	record Result(String workload, String note, int jobs, double seconds, double perSecond) {

		String line() {
			return String.format(Locale.ROOT,
					"RESULT {\"workload\":\"%s\",\"jobs\":%d,\"seconds\":%.3f,\"jobsPerSecond\":%.1f,\"note\":\"%s\"}",
					this.workload, this.jobs, this.seconds, this.perSecond, this.note);
		}

	}

	static double percentile(double[] sorted, int percent) {
		int index = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
	}

	private static void await(BooleanSupplier condition, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Timed out after " + timeout);
			}
			sleep(5);
		}
	}

	static void require(boolean condition, String what) {
		if (!condition) {
			throw new IllegalStateException("Wrong run: not true that " + what);
		}
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static long millis(long nanos) {
		return nanos / 1_000_000;
	}

	private static String fmt(double value) {
		return String.format(Locale.ROOT, "%.2f", value);
	}

	/**
	 * Every option a workload reads. A run can drop and fill the benchmark's schema for many
	 * minutes, so a misspelt option (or {@code --help}) must stop it before it starts rather
	 * than be ignored.
	 */
	static final List<String> KNOWN_OPTIONS = List.of("quick", "url", "schema", "user", "password", "jobs",
			"workloads", "sizes", "peers", "horizon", "warm-up", "reps", "threads", "seconds", "limit", "minutes",
			"soak-seconds", "rate", "hold-horizon", "overload-peer", "interval-seconds", "producers", "min-backlog",
			"retention", "pruner-interval", "plot", "finished", "queued", "heavy", "light-keys", "light-jobs",
			"job-millis", "workers", "probe-seconds", "unfair-seconds", "drain-jobs", "many-keys", "fair-parts");

	static Map<String, String> options(String[] args) {
		Map<String, String> options = new LinkedHashMap<>();
		for (String arg : args) {
			String option = arg.startsWith("--") ? arg.substring(2) : arg;
			int equals = option.indexOf('=');
			String name = (equals < 0) ? option : option.substring(0, equals);
			if (!KNOWN_OPTIONS.contains(name)) {
				throw new IllegalArgumentException("Unknown option '" + arg + "'; the benchmark takes --"
						+ String.join(", --", KNOWN_OPTIONS) + " (docs/performance.md says what each does)");
			}
			options.put(name, (equals < 0) ? "true" : option.substring(equals + 1));
		}
		return options;
	}

}
