package io.sqlqueue.boot.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sqlqueue.ExpiredJob;
import io.sqlqueue.JobListener;
import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.ReapedJob;
import io.sqlqueue.admin.TableHealth;
import io.sqlqueue.boot.autoconfigure.NotifyingQueueStats;
import io.sqlqueue.internal.maintenance.QueueStats;
import io.sqlqueue.internal.maintenance.ReplicaLagMonitor;
import io.sqlqueue.internal.maintenance.TableHealthMonitor;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.LostRaces;
import io.sqlqueue.internal.flow.Admission;

/**
 * The queue's Micrometer meters: counters and timers fed by what this instance does (as a
 * {@link JobListener}), gauges of its workers per queue, and gauges of the jobs per queue
 * and state as {@link QueueStats} last counted them (never a query per scrape).
 * <p>
 * Gauges of a queue are registered when the queue is first seen: served by the
 * {@link Manager}, or counted by {@link QueueStats}. They stay registered (at zero) when
 * the queue empties, so alerts on them do not see a gap.
 */
public class SqlQueueMetrics implements JobListener, MeterBinder {

	/** Prefix of every meter's name. */
	public static final String PREFIX = "sqlqueue.";

	private static final Logger logger = LoggerFactory.getLogger(SqlQueueMetrics.class);

	private final Supplier<@Nullable Manager> manager;

	private final Supplier<@Nullable QueueStats> stats;

	private final boolean percentilesHistogram;

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	private final Set<String> workerQueues = ConcurrentHashMap.newKeySet();

	private final Set<String> jobQueues = ConcurrentHashMap.newKeySet();

	private final Set<String> limitedQueues = ConcurrentHashMap.newKeySet();

	private final Supplier<@Nullable TableHealthMonitor> tableHealth;

	private final Supplier<@Nullable ReplicaLagMonitor> replicaLag;

	private final Set<String> tables = ConcurrentHashMap.newKeySet();

	/** The limits that may hold jobs back, the values of the tag {@code limit} of {@code sqlqueue.jobs.throttled}. */
	private static final List<String> LIMITS = List.of(Admission.QUEUE_CONCURRENCY, Admission.QUEUE_RATE,
			Admission.KEY_CONCURRENCY, Admission.KEY_RATE);

	private boolean subscribed;

	/**
	 * The meters recorded once per job, by registry, name and tags: building a meter and
	 * looking it up in the registry costs more than recording, and jobs come by the thousand.
	 */
	private final Map<PerJobMeter, Object> perJobMeters = new ConcurrentHashMap<>();

	/**
	 * @param manager this instance's Manager, or {@code null} when it runs no jobs; asked
	 * when binding, so that it may be created after this listener
	 * @param stats the counts per queue and state, or {@code null} for none
	 * @param percentilesHistogram whether the timers publish a histogram
	 */
	public SqlQueueMetrics(Supplier<@Nullable Manager> manager, Supplier<@Nullable QueueStats> stats,
			boolean percentilesHistogram) {
		this(manager, stats, () -> null, percentilesHistogram);
	}

	/**
	 * @param manager this instance's Manager, or {@code null} when it runs no jobs; asked
	 * when binding, so that it may be created after this listener
	 * @param stats the counts per queue and state, or {@code null} for none
	 * @param tableHealth the readings of the tables' health, or {@code null} for none
	 * @param percentilesHistogram whether the timers publish a histogram
	 */
	public SqlQueueMetrics(Supplier<@Nullable Manager> manager, Supplier<@Nullable QueueStats> stats,
			Supplier<@Nullable TableHealthMonitor> tableHealth, boolean percentilesHistogram) {
		this(manager, stats, tableHealth, () -> null, percentilesHistogram);
	}

	/**
	 * @param manager this instance's Manager, or {@code null} when it runs no jobs; asked
	 * when binding, so that it may be created after this listener
	 * @param stats the counts per queue and state, or {@code null} for none
	 * @param tableHealth the readings of the tables' health, or {@code null} for none
	 * @param replicaLag the answers of the read replica, or {@code null} for none (the gauge
	 * is registered only where there is a replica)
	 * @param percentilesHistogram whether the timers publish a histogram
	 */
	public SqlQueueMetrics(Supplier<@Nullable Manager> manager, Supplier<@Nullable QueueStats> stats,
			Supplier<@Nullable TableHealthMonitor> tableHealth, Supplier<@Nullable ReplicaLagMonitor> replicaLag,
			boolean percentilesHistogram) {
		this.replicaLag = replicaLag;
		this.tableHealth = tableHealth;
		this.manager = manager;
		this.stats = stats;
		this.percentilesHistogram = percentilesHistogram;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		synchronized (this) {
			this.registries.add(registry);
			Manager manager = this.manager.get();
			if (manager != null) {
				this.workerQueues.forEach((queue) -> registerWorkerGauges(registry, manager, queue));
			}
			QueueStats stats = this.stats.get();
			if (stats != null) {
				this.jobQueues.forEach((queue) -> registerJobGauges(registry, stats, queue));
				this.limitedQueues.forEach((queue) -> registerThrottledGauges(registry, stats, queue));
				this.tables.forEach((table) -> registerTableGauges(registry, this.tableHealth.get(), table));
				if (!this.subscribed && stats instanceof NotifyingQueueStats notifying) {
					notifying.subscribe((snapshot) -> safely(this::registerNewQueues));
					this.subscribed = true;
				}
			}
		}
		TableHealthMonitor tableHealth = this.tableHealth.get();
		if (tableHealth != null) {
			registerHorizonGauges(registry, tableHealth);
		}
		ReplicaLagMonitor replicaLag = this.replicaLag.get();
		if (replicaLag != null && replicaLag.isReplica()) {
			registerReplicaLagGauge(registry, replicaLag);
		}
		// Transactions another one won (a Galera node's certification, a deadlock), each tried again.
		FunctionCounter.builder(PREFIX + "database.races.lost", LostRaces.class, (c) -> LostRaces.retried())
			.description("Transactions of the queue that lost a race to another (error 1213, SQLState 40001) "
					+ "and were tried again")
			.register(registry);
		registerNewQueues();
	}

	/** Registers the gauges of queues seen since the last call. */
	public synchronized void registerNewQueues() {
		Manager manager = this.manager.get();
		if (manager != null) {
			for (String queue : manager.totalWorkers().keySet()) {
				if (this.workerQueues.add(queue)) {
					this.registries.forEach((registry) -> registerWorkerGauges(registry, manager, queue));
				}
			}
		}
		QueueStats stats = this.stats.get();
		if (stats != null) {
			Set<String> queues = new TreeSet<>(stats.latest().queues());
			queues.addAll(stats.latest().paused());
			for (String queue : queues) {
				if (this.jobQueues.add(queue)) {
					this.registries.forEach((registry) -> registerJobGauges(registry, stats, queue));
				}
			}
			for (String queue : stats.latest().throttled().keySet()) {
				if (this.limitedQueues.add(queue)) {
					this.registries.forEach((registry) -> registerThrottledGauges(registry, stats, queue));
				}
			}
		}
		TableHealthMonitor tableHealth = this.tableHealth.get();
		if (tableHealth != null) {
			for (TableHealth.Table table : tableHealth.latest().tables()) {
				if (this.tables.add(table.name())) {
					this.registries.forEach((registry) -> registerTableGauges(registry, tableHealth, table.name()));
				}
			}
		}
	}

	/**
	 * Rows and sizes of one of the queue's tables, as last read (docs/operations.md); NaN for
	 * what the database does not report.
	 */
	private static void registerTableGauges(MeterRegistry registry, @Nullable TableHealthMonitor monitor,
			String table) {
		if (monitor == null) {
			return;
		}
		tableGauge(registry, monitor, "table.rows", table, "state", "live", TableHealth.Table::liveRows, null,
				"Rows of the queue's table, as the database's statistics estimate them");
		tableGauge(registry, monitor, "table.rows", table, "state", "dead", TableHealth.Table::deadRows, null,
				"Dead row versions of the queue's table not reclaimed yet (PostgreSQL)");
		tableGauge(registry, monitor, "table.size", table, "part", "data", TableHealth.Table::dataBytes, "bytes",
				"Size of the queue's table on disk, by part");
		tableGauge(registry, monitor, "table.size", table, "part", "index", TableHealth.Table::indexBytes, "bytes",
				"Size of the queue's table on disk, by part");
		tableGauge(registry, monitor, "table.size", table, "part", "free", TableHealth.Table::freeBytes, "bytes",
				"Size of the queue's table on disk, by part");
	}

	private static void tableGauge(MeterRegistry registry, TableHealthMonitor monitor, String name, String table,
			String tag, String value, Function<TableHealth.Table, @Nullable Long> reading, @Nullable String unit,
			String description) {
		Gauge.builder(PREFIX + name, monitor, (m) -> m.latest()
			.tables()
			.stream()
			.filter((candidate) -> candidate.name().equals(table))
			.map(reading)
			.filter(Objects::nonNull)
			.mapToDouble(Long::doubleValue)
			.findFirst()
			.orElse(Double.NaN))
			.description(description)
			.baseUnit(unit)
			.tags("table", table, tag, value)
			.strongReference(true)
			.register(registry);
	}

	/**
	 * What holds the database's horizon back, as last read: the age of the oldest transaction
	 * (zero when none), the age in transactions of the oldest {@code xmin} a session, prepared
	 * transaction or replication slot holds (PostgreSQL), and InnoDB's undo history length.
	 */
	/** How far behind the read replica said it was when last asked; NaN when it could not tell. */
	private static void registerReplicaLagGauge(MeterRegistry registry, ReplicaLagMonitor monitor) {
		TimeGauge.builder(PREFIX + "replica.lag", monitor, TimeUnit.MILLISECONDS, (m) -> {
			Duration behind = m.latest().behind();
			return (behind != null) ? behind.toMillis() : Double.NaN;
		})
			.description("How far the read replica's data may be behind the queue's own database, as it last said "
					+ "(NaN when it cannot tell)")
			.strongReference(true)
			.register(registry);
	}

	private static void registerHorizonGauges(MeterRegistry registry, TableHealthMonitor monitor) {
		TimeGauge.builder(PREFIX + "horizon.age", monitor, TimeUnit.MILLISECONDS,
				(m) -> m.latest().oldestHolder().map((holder) -> holder.age().toMillis()).orElse(0L))
			.description("How long the oldest transaction holding the database's horizon back has been open")
			.strongReference(true)
			.register(registry);
		Gauge.builder(PREFIX + "horizon.xmin.age", monitor, (m) -> m.latest()
			.holders()
			.stream()
			.map(TableHealth.Holder::xminAge)
			.filter(Objects::nonNull)
			.mapToDouble(Long::doubleValue)
			.max()
			.orElse(m.latest().database().equals("postgresql") ? 0 : Double.NaN))
			.description("Transactions since the oldest xmin that a session, prepared transaction or "
					+ "replication slot holds (PostgreSQL)")
			.baseUnit("transactions")
			.strongReference(true)
			.register(registry);
		Gauge.builder(PREFIX + "undo.history.length", monitor,
				(m) -> (m.latest().historyLength() != null) ? m.latest().historyLength() : Double.NaN)
			.description("Undo log entries that purge has not reclaimed yet (InnoDB's history list length)")
			.strongReference(true)
			.register(registry);
	}

	private static void registerWorkerGauges(MeterRegistry registry, Manager manager, String queue) {
		Gauge.builder(PREFIX + "workers.busy", manager, (m) -> m.busyWorkers().getOrDefault(queue, 0))
			.description("Workers of this instance running a handler now")
			.tag("queue", queue)
			.strongReference(true)
			.register(registry);
		Gauge.builder(PREFIX + "workers.concurrency", manager, (m) -> m.totalWorkers().getOrDefault(queue, 0))
			.description("Workers of this instance for the queue: its concurrency")
			.tag("queue", queue)
			.strongReference(true)
			.register(registry);
	}

	private static void registerJobGauges(MeterRegistry registry, QueueStats stats, String queue) {
		for (JobStatus status : JobStatus.values()) {
			Gauge.builder(PREFIX + "jobs", stats, (s) -> s.latest().jobs(queue, status))
				.description("Jobs in the table by queue and state, as last counted")
				.tags("queue", queue, "status", status.name().toLowerCase(Locale.ROOT))
				.strongReference(true)
				.register(registry);
		}
		TimeGauge.builder(PREFIX + "jobs.oldest.due.age", stats, TimeUnit.MILLISECONDS,
				(s) -> s.latest().oldestDueAge(queue).toMillis())
			.description("How long the oldest due job of the queue has waited, as last counted")
			.tag("queue", queue)
			.strongReference(true)
			.register(registry);
		Gauge.builder(PREFIX + "queue.paused", stats, (s) -> s.latest().isPaused(queue) ? 1 : 0)
			.description("1 while the queue is paused across the cluster (no instance claims its jobs), else 0")
			.tag("queue", queue)
			.strongReference(true)
			.register(registry);
	}

	/** Due jobs a limit holds back, per limit, for a queue that has limits (docs/flow-control.md). */
	private static void registerThrottledGauges(MeterRegistry registry, QueueStats stats, String queue) {
		for (String limit : LIMITS) {
			Gauge.builder(PREFIX + "jobs.throttled", stats, (s) -> s.latest().throttled(queue, limit))
				.description("Due jobs of the queue that a limit holds back, as last counted")
				.tags("queue", queue, "limit", limit)
				.strongReference(true)
				.register(registry);
		}
	}

	@Override
	public void enqueued(String queue, String handler, int jobs) {
		each((registry) -> Counter.builder(PREFIX + "jobs.enqueued")
			.description("Jobs enqueued, counted when their transaction commits")
			.tags("queue", queue, "handler", handler)
			.register(registry)
			.increment(jobs));
	}

	@Override
	public void claimed(String queue, int jobs) {
		each((registry) -> DistributionSummary.builder(PREFIX + "claim.batch.size")
			.description("Jobs one claim took, empty claims included")
			.baseUnit("jobs")
			.tag("queue", queue)
			.register(registry)
			.record(jobs));
		if (!this.workerQueues.contains(queue)) {
			safely(this::registerNewQueues);
		}
	}

	@Override
	public void started(JobRecord job, Duration waited) {
		each((registry) -> perJob(new PerJobMeter(registry, "wait", job.queue(), job.handler(), null),
				() -> timer(PREFIX + "jobs.wait", "Time from when a job was due until its attempt started")
					.tags("queue", job.queue(), "handler", job.handler())
					.register(registry), Timer.class)
			.record(waited));
	}

	@Override
	public void finished(JobRecord job, JobOutcome outcome, Duration took) {
		each((registry) -> {
			perJob(new PerJobMeter(registry, "finished", job.queue(), job.handler(), outcome),
					() -> finishedCounter(job.queue(), job.handler(), outcome).register(registry), Counter.class)
				.increment();
			if (outcome == JobOutcome.EXPIRED) {
				return;
			}
			perJob(new PerJobMeter(registry, "execution", job.queue(), job.handler(), outcome),
					() -> timer(PREFIX + "jobs.execution", "Time an attempt's handler ran, by how the attempt ended")
						.tags("queue", job.queue(), "handler", job.handler(), "outcome", outcome.tag())
						.register(registry), Timer.class)
				.record(took);
		});
	}

	private <M> M perJob(PerJobMeter key, Supplier<M> register, Class<M> type) {
		Object meter = this.perJobMeters.get(key);
		return type.cast((meter != null) ? meter : this.perJobMeters.computeIfAbsent(key, (ignored) -> register.get()));
	}

	/** A per-job meter's identity; registries do not override {@code equals}, so each is its own. */
	private record PerJobMeter(MeterRegistry registry, String kind, String queue, String handler,
			@Nullable JobOutcome outcome) {
	}

	@Override
	public void cancelled(String queue, String handler) {
		each((registry) -> finishedCounter(queue, handler, JobOutcome.CANCELLED).register(registry).increment());
	}

	@Override
	public void expired(ExpiredJob job) {
		each((registry) -> finishedCounter(job.queue(), job.handler(), JobOutcome.EXPIRED).register(registry)
			.increment());
	}

	@Override
	public void leaseLost(JobRecord job) {
		each((registry) -> Counter.builder(PREFIX + "leases.lost")
			.description("Attempts whose lease was lost: a fenced write or heartbeat found the job no longer theirs")
			.tags("queue", job.queue(), "handler", job.handler())
			.register(registry)
			.increment());
	}

	@Override
	public void reaped(ReapedJob job) {
		each((registry) -> Counter.builder(PREFIX + "jobs.reaped")
			.description("Crashes: attempts whose lease expired (the worker died or froze), by what the reaper "
					+ "did with the job: requeued, failed (attempts or crash budget used up) or cancelled")
			.tags("queue", job.queue(), "handler", job.handler(), "outcome", job.outcome())
			.register(registry)
			.increment());
	}

	@Override
	public void ticked(String schedule, Instant tick, Duration lag, boolean fired) {
		each((registry) -> {
			Counter.builder(PREFIX + "schedules.ticks")
				.description("Schedule ticks handled: their job fired, or skipped by a policy")
				.tags("schedule", schedule, "outcome", fired ? "fired" : "skipped")
				.register(registry)
				.increment();
			timer(PREFIX + "schedules.lag", "Time from a schedule's tick until it was handled (database clock)")
				.tag("schedule", schedule)
				.register(registry)
				.record(lag);
		});
	}

	private static Counter.Builder finishedCounter(String queue, String handler, JobOutcome outcome) {
		return Counter.builder(PREFIX + "jobs.finished")
			.description("Attempts that ended, and jobs cancelled or expired, by outcome")
			.tags("queue", queue, "handler", handler, "outcome", outcome.tag());
	}

	private Timer.Builder timer(String name, String description) {
		return Timer.builder(name)
			.description(description)
			.publishPercentileHistogram(this.percentilesHistogram ? Boolean.TRUE : null);
	}

	private void each(Consumer<MeterRegistry> record) {
		for (MeterRegistry registry : this.registries) {
			try {
				record.accept(registry);
			}
			catch (RuntimeException ex) {
				logger.debug("sqlqueue could not record a meter", ex);
			}
		}
	}

	private static void safely(Runnable action) {
		try {
			action.run();
		}
		catch (RuntimeException ex) {
			logger.debug("sqlqueue could not register its gauges", ex);
		}
	}

}
