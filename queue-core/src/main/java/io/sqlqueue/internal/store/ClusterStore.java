package io.sqlqueue.internal.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.JobStatus;

/**
 * What the instances of one queue share beyond its jobs, as SQL: the paused queues
 * ({@code queue_paused}), the instances' own rows ({@code queue_instance}) and the counts
 * one of them counts for all ({@code queue_count}, {@code queue_count_turn}). Every write
 * is one short transaction of its own on a small table keyed by name or id, so none waits
 * for more than another such write of the same row; reads take no locks.
 * <p>
 * Times are the database's ({@code last_seen}, {@code paused_at}): instances with skewed
 * clocks agree on which of them is gone.
 */
public class ClusterStore {

	/** The kind of a shared count of due jobs a limit holds back: this, then the limit's name. */
	private static final String THROTTLED = "throttled:";

	private final Dialect dialect;

	private final JdbcTemplate jdbc;

	private final StoreTransactions transactions;

	private final ClusterSql sql;

	/** The cluster store of a store, on its context. */
	ClusterStore(StoreContext context, @Nullable String schema) {
		this.dialect = context.dialect();
		this.jdbc = context.jdbc();
		this.transactions = context.transactions();
		this.sql = new ClusterSql(this.dialect, schema);
	}

	/**
	 * The names of the paused queues: what every instance's poll loop reads once per poll
	 * interval. Never in a caller's transaction: a pause in a caller's transaction that had read
	 * before (MariaDB's REPEATABLE READ keeps that snapshot) would not see the pause it just
	 * committed in a transaction of its own, and this instance would claim on.
	 */
	public Set<String> pausedQueues() {
		Supplier<Set<String>> read = () -> new HashSet<>(this.jdbc.queryForList(this.sql.pausedNames, String.class));
		return this.transactions.callerHasOne() ? this.transactions.inNewReadCommitted(read) : read.get();
	}

	/** The paused queues, by name. */
	public List<PausedRow> paused() {
		return this.jdbc.query(this.sql.paused, (rs, row) -> new PausedRow(rs.getString("queue"),
				this.dialect.getTimestamp(rs, "paused_at"), rs.getString("paused_by")));
	}

	/**
	 * Pauses the queue, in a transaction of its own; false when it was paused already (also
	 * when another operator paused it at the same moment).
	 */
	public boolean pause(String queue, @Nullable String by) {
		return pause(queue, by, () -> {
		});
	}

	/**
	 * As {@link #pause(String, String)}, running {@code andThen} in the same transaction once
	 * the pause is stored (the action's audit entry), so both commit or neither.
	 */
	public boolean pause(String queue, @Nullable String by, Runnable andThen) {
		try {
			return this.transactions.inNewTransaction(() -> {
				if (this.jdbc.update(this.sql.pause, queue, by) != 1) {
					return false;
				}
				andThen.run();
				return true;
			});
		}
		catch (DuplicateKeyException ex) {
			return false;
		}
	}

	/** Resumes the queue, in a transaction of its own; false when it was not paused. */
	public boolean resume(String queue) {
		return resume(queue, () -> {
		});
	}

	/** As {@link #resume(String)}, running {@code andThen} in the same transaction once it resumed. */
	public boolean resume(String queue, Runnable andThen) {
		return this.transactions.inNewTransaction(() -> {
			if (this.jdbc.update(this.sql.resume, queue) != 1) {
				return false;
			}
			andThen.run();
			return true;
		});
	}

	/** Whether a job waits ({@code QUEUED}) in the queue. */
	public boolean hasQueuedJob(String queue) {
		return !this.jdbc.queryForList(this.sql.queuedJobIn, Long.class, queue).isEmpty();
	}

	/**
	 * Writes the instance's row, its {@code last_seen} the database's clock now; inserts it
	 * (started now) when there is none: at the first beat, or when another instance deleted
	 * it while this one was stalled past the retention.
	 */
	public void beat(InstanceReport report) {
		String queues = String.join(",", report.queues());
		this.transactions.inNewReadCommitted(() -> {
			int updated = this.jdbc.update(this.sql.beat, report.host(), report.pid(), report.version(), queues,
					report.concurrency(), report.busyWorkers(), report.beatMillis(), report.id());
			if (updated == 0) {
				this.jdbc.update(this.sql.insertInstance, report.id(), report.host(), report.pid(), report.version(),
						queues, report.concurrency(), report.busyWorkers(), report.beatMillis());
			}
			return null;
		});
	}

	/** Deletes the instance's row (it stops cleanly); false when there was none. */
	public boolean deleteInstance(String id) {
		return this.transactions.inNewTransaction(() -> this.jdbc.update(this.sql.deleteInstance, id) == 1);
	}

	/** Deletes the rows of instances not seen for longer than {@code retention}; returns how many. */
	public int deleteUnseen(Duration retention) {
		return this.transactions
			.inNewReadCommitted(() -> this.jdbc.update(this.sql.deleteUnseen, -retention.toMillis()));
	}

	/** Every instance's row, the longest running first. */
	public List<InstanceRow> instances() {
		return this.jdbc.query(this.sql.instances, this::instance);
	}

	/**
	 * Takes the turn to count for the cluster when no instance took it within {@code gap}:
	 * the turn's number, or empty when another instance holds it. At most one instance gets a
	 * turn per gap, on the database's clock: takers wait for each other on the turn's one row,
	 * and the later finds it taken.
	 */
	public OptionalLong takeCountTurn(String taker, Duration gap) {
		return onTurnRow(() -> {
			if (this.jdbc.update(this.sql.takeCountTurn, taker, -gap.toMillis(), -gap.multipliedBy(3).toMillis()) != 1) {
				return OptionalLong.empty();
			}
			Long turn = this.jdbc.queryForObject(this.sql.countTurn, Long.class, taker);
			return (turn != null) ? OptionalLong.of(turn) : OptionalLong.empty();
		});
	}

	/**
	 * Writes the counts of the turn {@code turn}, replacing those there, in one transaction;
	 * false, writing nothing, when another instance has taken a later turn meanwhile (this one
	 * stalled past its gap), so older counts never overwrite newer ones.
	 */
	public boolean shareCounts(String counter, long turn, List<QueueCount> counts,
			Map<String, Map<String, Long>> throttled) {
		List<Object[]> rows = new ArrayList<>();
		counts.forEach((count) -> rows.add(new Object[] { count.queue(), count.status().name(), count.jobs(),
				count.oldestDueAge().toMillis(), count.estimated() }));
		throttled.forEach((queue, byLimit) -> byLimit.forEach(
				(limit, jobs) -> rows.add(new Object[] { queue, THROTTLED + limit, jobs, 0L, false })));
		return onTurnRow(() -> {
			if (this.jdbc.update(this.sql.endCountTurn, counter, turn, counter) != 1) {
				return false;
			}
			this.jdbc.update(this.sql.deleteCounts);
			this.jdbc.batchUpdate(this.sql.insertCount, rows);
			return true;
		});
	}

	/**
	 * Runs {@code work} on the turn's row in a transaction of its own whose wait for that row
	 * lasts at most {@link StoreTransactions#OWN_LOCK_WAIT}: an instance frozen (or cut off) while it
	 * holds the row keeps no other instance's stats pass waiting; the pass fails and the next
	 * tries again. SQLite: its busy timeout bounds the wait.
	 */
	private <T> T onTurnRow(Supplier<T> work) {
		return this.transactions.rowLocks() ? this.transactions.inNewBoundedLockWait(this.jdbc, StoreTransactions.OWN_LOCK_WAIT, work)
				: this.transactions.inNewTransaction(work);
	}

	/** The counts last shared, read in one statement, so never half of one turn's and half of another's. */
	public SharedCounts sharedCounts() {
		List<QueueCount> counts = new ArrayList<>();
		Map<String, Map<String, Long>> throttled = new TreeMap<>();
		String[] countedBy = new String[1];
		Duration[] age = { Duration.ZERO };
		Duration[] took = { null };
		this.jdbc.query(this.sql.sharedCounts, (rs) -> {
			countedBy[0] = rs.getString("counted_by");
			Instant countedAt = this.dialect.getTimestamp(rs, "counted_at");
			Instant takenAt = this.dialect.getTimestamp(rs, "taken_at");
			Instant now = this.dialect.getTimestamp(rs, "db_now");
			if (countedAt != null && now != null && now.isAfter(countedAt)) {
				age[0] = Duration.between(countedAt, now);
			}
			// A turn taken since the counts were written is under way: how long it takes is not known yet.
			if (countedAt != null && takenAt != null && !countedAt.isBefore(takenAt)) {
				took[0] = Duration.between(takenAt, countedAt);
			}
			String kind = rs.getString("kind");
			if (kind == null) {
				return;
			}
			String queue = rs.getString("queue");
			long jobs = rs.getLong("jobs");
			if (kind.startsWith(THROTTLED)) {
				throttled.computeIfAbsent(queue, (key) -> new TreeMap<>()).put(kind.substring(THROTTLED.length()), jobs);
			}
			else {
				counts.add(new QueueCount(queue, JobStatus.valueOf(kind), jobs,
						Duration.ofMillis(rs.getLong("oldest_due_ms")), rs.getBoolean("estimated")));
			}
		});
		return new SharedCounts(List.copyOf(counts), throttled, countedBy[0], age[0], took[0]);
	}

	private InstanceRow instance(ResultSet rs, int row) throws SQLException {
		String queues = rs.getString("queues");
		return new InstanceRow(rs.getString("id"), rs.getString("host"), rs.getLong("pid"), rs.getString("version"),
				(queues == null || queues.isEmpty()) ? List.of() : Arrays.asList(queues.split(",")),
				rs.getInt("concurrency"), rs.getInt("busy_workers"), rs.getLong("beat_millis"),
				this.dialect.getTimestamp(rs, "started_at"), this.dialect.getTimestamp(rs, "last_seen"),
				this.dialect.getTimestamp(rs, "db_now"));
	}

}
