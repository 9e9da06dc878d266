package io.sqlqueue.internal.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What the instances of one queue share beyond its jobs, as SQL: the paused queues
 * ({@code queue_paused}) and the instances' own rows ({@code queue_instance}). Every write
 * is one short transaction of its own on a small table keyed by name or id, so none waits
 * for more than another such write of the same row; reads take no locks.
 * <p>
 * Times are the database's ({@code last_seen}, {@code paused_at}): instances with skewed
 * clocks agree on which of them is gone.
 */
public class ClusterStore {

	private final Dialect dialect;

	private final JdbcTemplate jdbc;

	private final StoreTransactions transactions;

	private final ClusterSql sql;

	/** The cluster store of a {@link JobStore}, on its template and transactions. */
	ClusterStore(JdbcTemplate jdbc, StoreTransactions transactions, Dialect dialect, @Nullable String schema) {
		this.dialect = dialect;
		this.jdbc = jdbc;
		this.transactions = transactions;
		this.sql = new ClusterSql(dialect, schema);
	}

	/** The names of the paused queues: what every instance's poll loop reads once per poll interval. */
	public Set<String> pausedQueues() {
		return new HashSet<>(this.jdbc.queryForList(this.sql.pausedNames, String.class));
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

	private InstanceRow instance(ResultSet rs, int row) throws SQLException {
		String queues = rs.getString("queues");
		return new InstanceRow(rs.getString("id"), rs.getString("host"), rs.getLong("pid"), rs.getString("version"),
				(queues == null || queues.isEmpty()) ? List.of() : Arrays.asList(queues.split(",")),
				rs.getInt("concurrency"), rs.getInt("busy_workers"), rs.getLong("beat_millis"),
				this.dialect.getTimestamp(rs, "started_at"), this.dialect.getTimestamp(rs, "last_seen"),
				this.dialect.getTimestamp(rs, "db_now"));
	}

}
