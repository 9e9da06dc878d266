package io.sqlqueue.boot.health;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import io.sqlqueue.JobStatus;
import io.sqlqueue.admin.TableHealth;
import io.sqlqueue.internal.maintenance.QueueStats.Snapshot;
import io.sqlqueue.internal.maintenance.QueueStats;
import io.sqlqueue.internal.maintenance.TableHealthMonitor;
import io.sqlqueue.internal.manager.Manager;

/**
 * The queue's health, from the counts {@link QueueStats} last read (it never queries):
 * <ul>
 * <li>{@code DOWN} when the last read failed (the database is unreachable), and as soon as a
 * read has been under way for longer than the maximum read time (a database that does not
 * answer keeps it waiting as long as the pool's timeouts allow): the indicator never waits
 * for the database, so it answers at once either way;</li>
 * <li>{@code DOWN} when this instance's {@link Manager} ran and has stopped;</li>
 * <li>the stale status ({@code DOWN} by default) when a queue's oldest due job has waited
 * longer than the maximum due age: nothing is taking its jobs; except where the queue's limits
 * hold due jobs back (docs/flow-control.md): its jobs wait by design, and it shows under
 * {@code throttled} instead; and except where the queue is paused (docs/operations.md): it
 * shows under {@code paused};</li>
 * <li>the stale status as well when a schedule is more than its own period behind (it
 * should have fired and has not, although it is neither paused nor orphaned), detail
 * {@code behindSchedules}; only once this instance's schedule firer has had a pass since
 * start-up (see {@link BehindSchedules}), so a restart does not read as a failure;</li>
 * <li>the stale status as well when a schedule is orphaned and not paused: declared from the
 * code, it has been declared by no live instance for a while, so no instance fires it until
 * it is declared again or deleted; detail {@code orphanedSchedules}, each with its source;</li>
 * <li>the horizon status ({@code WARN} by default) when a transaction (or a prepared one)
 * has held the database's horizon back for longer than the maximum horizon age while the
 * queue's tables have dead rows (or undo history) that cannot be reclaimed past it
 * ({@link TableHealth#holdingBack}), detail {@code horizon} with each holder's pid,
 * application, state and age; from the last reading of the {@link TableHealthMonitor}, whose
 * summary shows under {@code tables};</li>
 * <li>{@code UNKNOWN} before the first read;</li>
 * <li>{@code UP} otherwise.</li>
 * </ul>
 * A Manager that never started (it has no handlers) does not count against health. The
 * details show the Manager's state, the counts per queue and state with each queue's
 * oldest due age, and when they were read.
 */
public class SqlQueueHealthIndicator extends AbstractHealthIndicator {

	private final QueueStats stats;

	private final @Nullable Manager manager;

	private final Duration maxDueAge;

	private final Status staleStatus;

	private final @Nullable BehindSchedules behindSchedules;

	private final @Nullable Horizon horizon;

	/** The default of {@code management.health.sqlqueue.max-read-time}. */
	public static final Duration DEFAULT_MAX_READ_TIME = Duration.ofSeconds(10);

	private final Duration maxReadTime;

	/**
	 * How the tables' health counts: from this monitor's last reading, a holder older than
	 * {@code maxAge} that holds the queue back sets {@code status}.
	 */
	public record Horizon(TableHealthMonitor monitor, Duration maxAge, Status status) {
	}

	/**
	 * @param manager this instance's Manager, or {@code null} when it runs no jobs
	 * @param maxDueAge longest a due job may wait before its queue counts as stuck
	 * @param staleStatus status while a queue is stuck
	 */
	public SqlQueueHealthIndicator(QueueStats stats, @Nullable Manager manager, Duration maxDueAge,
			Status staleStatus) {
		this(stats, manager, maxDueAge, staleStatus, null);
	}

	/**
	 * @param manager this instance's Manager, or {@code null} when it runs no jobs
	 * @param maxDueAge longest a due job may wait before its queue counts as stuck
	 * @param staleStatus status while a queue is stuck or a schedule behind
	 * @param behindSchedules the schedules behind as last read, or {@code null} not to check them
	 */
	public SqlQueueHealthIndicator(QueueStats stats, @Nullable Manager manager, Duration maxDueAge,
			Status staleStatus, @Nullable BehindSchedules behindSchedules) {
		this(stats, manager, maxDueAge, staleStatus, behindSchedules, null);
	}

	/**
	 * @param manager this instance's Manager, or {@code null} when it runs no jobs
	 * @param maxDueAge longest a due job may wait before its queue counts as stuck
	 * @param staleStatus status while a queue is stuck or a schedule behind
	 * @param behindSchedules the schedules behind as last read, or {@code null} not to check them
	 * @param horizon how the tables' health counts, or {@code null} not to check it
	 */
	public SqlQueueHealthIndicator(QueueStats stats, @Nullable Manager manager, Duration maxDueAge,
			Status staleStatus, @Nullable BehindSchedules behindSchedules, @Nullable Horizon horizon) {
		this(stats, manager, maxDueAge, staleStatus, behindSchedules, horizon, DEFAULT_MAX_READ_TIME);
	}

	/**
	 * @param manager this instance's Manager, or {@code null} when it runs no jobs
	 * @param maxDueAge longest a due job may wait before its queue counts as stuck
	 * @param staleStatus status while a queue is stuck or a schedule behind
	 * @param behindSchedules the schedules behind as last read, or {@code null} not to check them
	 * @param horizon how the tables' health counts, or {@code null} not to check it
	 * @param maxReadTime longest a read of the counts may take before the database counts as not answering
	 */
	public SqlQueueHealthIndicator(QueueStats stats, @Nullable Manager manager, Duration maxDueAge,
			Status staleStatus, @Nullable BehindSchedules behindSchedules, @Nullable Horizon horizon,
			Duration maxReadTime) {
		super("sqlqueue health check failed");
		this.maxReadTime = maxReadTime;
		this.horizon = horizon;
		this.behindSchedules = behindSchedules;
		this.stats = stats;
		this.manager = manager;
		this.maxDueAge = maxDueAge;
		this.staleStatus = staleStatus;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Snapshot snapshot = this.stats.latest();
		String managerState = managerState();
		builder.withDetail("manager", managerState);
		if (snapshot.sampledAt() != null) {
			builder.withDetail("sampledAt", snapshot.sampledAt().toString());
		}
		if (snapshot.countedBy() != null) {
			builder.withDetail("countedBy", snapshot.countedBy());
		}
		builder.withDetail("maxDueAge", this.maxDueAge.toString());
		Map<String, Object> queues = new TreeMap<>();
		Map<String, String> stale = new TreeMap<>();
		Map<String, Map<String, Long>> throttled = new TreeMap<>();
		for (String queue : snapshot.queues()) {
			Map<String, Object> counts = new LinkedHashMap<>();
			for (JobStatus status : JobStatus.values()) {
				counts.put(status.name(), snapshot.jobs(queue, status));
			}
			Duration oldest = snapshot.oldestDueAge(queue);
			counts.put("oldestDueAge", oldest.toString());
			queues.put(queue, counts);
			Map<String, Long> held = snapshot.throttled().getOrDefault(queue, Map.of());
			if (snapshot.isPaused(queue)) {
				// Its jobs wait because an operator paused it, not because nothing takes them.
				continue;
			}
			if (held.values().stream().anyMatch((jobs) -> jobs > 0)) {
				throttled.put(queue, held);
			}
			else if (oldest.compareTo(this.maxDueAge) > 0) {
				stale.put(queue, oldest.toString());
			}
		}
		builder.withDetail("queues", queues);
		if (!throttled.isEmpty()) {
			builder.withDetail("throttled", throttled);
		}
		if (!snapshot.paused().isEmpty()) {
			builder.withDetail("paused", new TreeSet<>(snapshot.paused()));
		}
		Map<String, String> behind = (this.behindSchedules != null) ? this.behindSchedules.latest() : Map.of();
		Map<String, String> orphaned = (this.behindSchedules != null) ? this.behindSchedules.orphaned() : Map.of();
		List<TableHealth.Holder> holdingBack = List.of();
		if (this.horizon != null) {
			TableHealth tables = this.horizon.monitor().latest();
			builder.withDetail("tables", tablesDetail(tables));
			holdingBack = tables.holdingBack(this.horizon.maxAge());
		}
		Duration unanswered = this.stats.readUnderWay().filter((took) -> took.compareTo(this.maxReadTime) > 0)
			.orElse(null);
		if (snapshot.failure() != null) {
			builder.down(snapshot.failure());
		}
		else if (unanswered != null) {
			builder.down()
				.withDetail("unanswered", "a read of the counts has waited " + unanswered.toSeconds()
						+ " s for the database (longer than " + this.maxReadTime + "): it does not answer");
		}
		else if (managerState.equals("stopped")) {
			builder.down();
		}
		else if (!stale.isEmpty() || !behind.isEmpty() || !orphaned.isEmpty()) {
			builder.status(this.staleStatus);
			if (!stale.isEmpty()) {
				builder.withDetail("stale", stale);
			}
			if (!behind.isEmpty()) {
				builder.withDetail("behindSchedules", behind);
			}
			if (!orphaned.isEmpty()) {
				builder.withDetail("orphanedSchedules", orphaned);
			}
		}
		else if (!holdingBack.isEmpty()) {
			builder.status(this.horizon.status());
			builder.withDetail("horizon", holdingBack.stream().map(SqlQueueHealthIndicator::holderDetail).toList());
		}
		else if (snapshot.sampledAt() == null) {
			builder.unknown();
		}
		else {
			builder.up();
		}
	}

	/** A short summary of the tables' health: the full reading is the endpoint's and the dashboard's. */
	private Map<String, Object> tablesDetail(TableHealth tables) {
		Map<String, Object> detail = new LinkedHashMap<>();
		if (tables.readAt() != null) {
			detail.put("readAt", tables.readAt().toString());
		}
		detail.put("maxHorizonAge", this.horizon.maxAge().toString());
		Long dead = tables.deadRows();
		if (dead != null) {
			detail.put("deadRows", dead);
		}
		if (tables.historyLength() != null) {
			detail.put("historyLength", tables.historyLength());
		}
		tables.oldestHolder().ifPresent((holder) -> detail.put("oldestHolder", holderDetail(holder)));
		if (tables.failure() != null) {
			detail.put("failure", tables.failure());
		}
		return detail;
	}

	private static Map<String, Object> holderDetail(TableHealth.Holder holder) {
		Map<String, Object> detail = new LinkedHashMap<>();
		detail.put("kind", holder.kind());
		if (holder.pid() != null) {
			detail.put("pid", holder.pid());
		}
		if (holder.name() != null) {
			detail.put("name", holder.name());
		}
		if (holder.application() != null) {
			detail.put("application", holder.application());
		}
		if (holder.state() != null) {
			detail.put("state", holder.state());
		}
		if (holder.age() != null) {
			detail.put("age", holder.age().toString());
		}
		return detail;
	}

	/** {@code running}, {@code idle} (never started: no handlers), {@code stopped}, or {@code none}. */
	private String managerState() {
		if (this.manager == null) {
			return "none";
		}
		if (this.manager.isRunning()) {
			return "running";
		}
		return this.manager.totalWorkers().isEmpty() ? "idle" : "stopped";
	}

}
