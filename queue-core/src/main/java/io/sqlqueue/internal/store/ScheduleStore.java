package io.sqlqueue.internal.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import io.sqlqueue.Names;

/**
 * The schedules' verbs as SQL, on {@code queue_schedule}. Every write that depends on what
 * was read is a compare-and-set on the row's version, on every database: a firing takes its
 * tick ({@link #takeUnlessHeld}), an operation its change ({@link #take},
 * {@link #updateDefinition}, {@link #setPaused}), only if nobody changed the row since it
 * was read. The firing's take holds the row until its transaction (which also enqueues the
 * tick's job) commits; whoever read before then finds the version moved and reads again.
 * So any number of instances and operators, with any JVM clocks, give one job per tick.
 * <p>
 * What waits for what: reads ({@link #due}, {@link #find}, {@link #all}) take no locks. A
 * firing never waits for a row that another transaction holds (a caller's open
 * transaction that paused or changed a schedule, another instance's firing) where the
 * database has {@code SKIP LOCKED}: it passes over the schedule until the next pass. On
 * SQLite, which has one writer at a time, it waits up to the busy timeout like every
 * writer. The operations ({@link #take}, {@link #updateDefinition}, {@link #setPaused}) are
 * a caller's and wait for the row like any update.
 */
public class ScheduleStore {

	private final Dialect dialect;

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transaction;

	private final String table;

	private final String jobTable;

	private final String select;

	private final @Nullable String lockUnlessHeld;

	public ScheduleStore(DataSource dataSource, Dialect dialect, @Nullable String schema) {
		this.dialect = dialect;
		this.jdbc = new JdbcTemplate(dataSource);
		this.jdbc.setExceptionTranslator(dialect.exceptionTranslator(this.jdbc.getExceptionTranslator()));
		this.transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		this.transaction.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
		String checkedSchema = Names.requireSchema(schema);
		String prefix = (checkedSchema != null) ? dialect.quote(checkedSchema) + "." : "";
		this.table = prefix + "queue_schedule";
		this.jobTable = prefix + "queue_job";
		this.select = """
				SELECT s.*, j.status AS last_job_status, %s AS db_now
				FROM %s s LEFT JOIN %s j ON j.id = s.last_job_id""".formatted(dialect.now(), this.table, this.jobTable);
		this.lockUnlessHeld = dialect.supports(ClaimMethod.LOCK_THEN_UPDATE)
				? "SELECT name FROM %s WHERE name = ? AND version = ?\nFOR UPDATE SKIP LOCKED".formatted(this.table)
				: null;
	}

	/** Every schedule, by name. */
	public List<ScheduleRow> all() {
		return this.jdbc.query(this.select + "\nORDER BY s.name", this::mapRow);
	}

	public Optional<ScheduleRow> find(String name) {
		return this.jdbc.query(this.select + "\nWHERE s.name = ?", this::mapRow, name).stream().findFirst();
	}

	/** Schedules due now (database clock), not paused nor orphaned, the most overdue first. */
	public List<ScheduleRow> due(int limit) {
		return this.jdbc.query(this.select + """

				WHERE s.next_run_at <= %s AND s.paused = FALSE AND s.orphaned = FALSE
				ORDER BY s.next_run_at
				LIMIT ?""".formatted(this.dialect.now()), this::mapRow, limit);
	}

	/** The database's clock now. */
	public Instant now() {
		return this.jdbc.query("SELECT " + this.dialect.now() + " AS db_now",
				(rs) -> rs.next() ? this.dialect.getTimestamp(rs, "db_now") : null);
	}

	/** Runs {@code work} in one READ COMMITTED transaction, which enqueues join. */
	public <T> T inTransaction(Supplier<T> work) {
		return this.transaction.execute((status) -> work.get());
	}

	/** Inserts a schedule; false when one of that name exists. */
	public boolean insert(ScheduleRow row) {
		try {
			return this.jdbc.update("""
					INSERT INTO %s (name, handler, queue, priority, max_attempts, expire_after_millis, concurrency_key,
					                payload, cron, zone, every_millis, misfire, overlap, source, paused, orphaned,
					                next_run_at, version, created_at, updated_at)
					VALUES (?, ?, ?, ?, ?, ?, ?, %s, ?, ?, ?, ?, ?, ?, ?, ?, %s, 0, %s, %s)""".formatted(this.table,
					this.dialect.jsonParameter(), this.dialect.timestampParameter(), this.dialect.now(),
					this.dialect.now()), (ps) -> {
						ps.setString(1, row.name());
						ps.setString(2, row.handler());
						int index = setDefinition(ps, 3, row);
						ps.setBoolean(index++, row.paused());
						ps.setBoolean(index++, row.orphaned());
						this.dialect.setTimestamp(ps, index, row.nextRunAt());
					}) == 1;
		}
		catch (DuplicateKeyException ex) {
			return false;
		}
	}

	/**
	 * Replaces a schedule's definition and source, and its next due time when
	 * {@code nextRunAt} is not null; the schedule is no longer orphaned. False when none has
	 * that name, or its {@code version} moved since it was read.
	 */
	public boolean updateDefinition(ScheduleRow row, @Nullable Instant nextRunAt, long version) {
		return this.jdbc.update("""
				UPDATE %s SET handler = ?, queue = ?, priority = ?, max_attempts = ?, expire_after_millis = ?,
				    concurrency_key = ?, payload = %s, cron = ?, zone = ?, every_millis = ?, misfire = ?, overlap = ?,
				    source = ?, orphaned = FALSE, next_run_at = COALESCE(%s, next_run_at), version = version + 1,
				    updated_at = %s
				WHERE name = ? AND version = ?""".formatted(this.table, this.dialect.jsonParameter(),
				this.dialect.timestampParameter(), this.dialect.now()), (ps) -> {
					ps.setString(1, row.handler());
					int index = setDefinition(ps, 2, row);
					this.dialect.setTimestamp(ps, index++, nextRunAt);
					ps.setString(index++, row.name());
					ps.setLong(index, version);
				}) == 1;
	}

	/**
	 * Binds the definition's columns from {@code queue} through {@code source}, in the order
	 * of {@link #insert} and {@link #updateDefinition}; returns the next index.
	 */
	private static int setDefinition(PreparedStatement ps, int first, ScheduleRow row) throws SQLException {
		int index = first;
		ps.setString(index++, row.queue());
		ps.setInt(index++, row.priority());
		ps.setObject(index++, row.maxAttempts(), Types.INTEGER);
		ps.setObject(index++, row.expireAfterMillis(), Types.BIGINT);
		ps.setString(index++, row.concurrencyKey());
		ps.setString(index++, row.payload());
		ps.setString(index++, row.cron());
		ps.setString(index++, row.zone());
		ps.setObject(index++, row.everyMillis(), Types.BIGINT);
		ps.setString(index++, row.misfire());
		ps.setString(index++, row.overlap());
		ps.setString(index++, row.source());
		return index;
	}

	/**
	 * Pauses or resumes; when resuming, the next tick is {@code nextRunAt}. False when none
	 * has that name, or its {@code version} moved since it was read.
	 */
	public boolean setPaused(String name, long version, boolean paused, @Nullable Instant nextRunAt) {
		return this.jdbc.update("""
				UPDATE %s SET paused = ?, next_run_at = COALESCE(%s, next_run_at), version = version + 1,
				    updated_at = %s
				WHERE name = ? AND version = ?""".formatted(this.table, this.dialect.timestampParameter(),
				this.dialect.now()), (ps) -> {
					ps.setBoolean(1, paused);
					this.dialect.setTimestamp(ps, 2, nextRunAt);
					ps.setString(3, name);
					ps.setLong(4, version);
				}) == 1;
	}

	/** Marks a schedule orphaned (its declaration left the code): it stops firing. */
	public boolean orphan(String name) {
		return this.jdbc.update("UPDATE %s SET orphaned = TRUE, version = version + 1, updated_at = %s WHERE name = ?"
			.formatted(this.table, this.dialect.now()), name) == 1;
	}

	public boolean delete(String name) {
		return this.jdbc.update("DELETE FROM %s WHERE name = ?".formatted(this.table), name) == 1;
	}

	/**
	 * Takes the schedule for a change if nobody changed it since {@code version} was read,
	 * waiting for the row if another transaction holds it (an operation's, on behalf of its
	 * caller); inside {@link #inTransaction}, the row then stays this transaction's until it
	 * ends.
	 */
	public boolean take(String name, long version) {
		return this.jdbc.update("UPDATE %s SET version = version + 1 WHERE name = ? AND version = ?"
			.formatted(this.table), name, version) == 1;
	}

	/**
	 * Takes the schedule's due tick as {@link #take} does, inside {@link #inTransaction}, but
	 * passes over a row that another transaction holds, where the database can tell
	 * ({@code SKIP LOCKED}): false then, as when the version moved. A firing must not wait for
	 * a caller's open transaction, nor hold up the other schedules meanwhile.
	 */
	public boolean takeUnlessHeld(String name, long version) {
		if (this.lockUnlessHeld != null
				&& this.jdbc.queryForList(this.lockUnlessHeld, String.class, name, version).isEmpty()) {
			return false;
		}
		return take(name, version);
	}

	/**
	 * Moves a taken schedule on: its next due time, the latest tick handled, and, when a job
	 * was enqueued ({@code lastJobId} not null), that job and the time of firing.
	 */
	public void advance(String name, Instant nextRunAt, @Nullable Instant lastTick, @Nullable Long lastJobId) {
		String now = this.dialect.now();
		String fired = (lastJobId != null) ? ", last_job_id = ?, last_fired_at = " + now : "";
		String statement = """
				UPDATE %s SET next_run_at = %s, last_tick_at = COALESCE(%s, last_tick_at)%s, updated_at = %s
				WHERE name = ?"""
			.formatted(this.table, this.dialect.timestampParameter(), this.dialect.timestampParameter(), fired, now);
		this.jdbc.update(statement, (ps) -> {
			int index = 1;
			this.dialect.setTimestamp(ps, index++, nextRunAt);
			this.dialect.setTimestamp(ps, index++, lastTick);
			if (lastJobId != null) {
				ps.setLong(index++, lastJobId);
			}
			ps.setString(index, name);
		});
	}

	private ScheduleRow mapRow(ResultSet rs, int row) throws SQLException {
		long every = rs.getLong("every_millis");
		Long everyMillis = rs.wasNull() ? null : every;
		long job = rs.getLong("last_job_id");
		Long lastJobId = rs.wasNull() ? null : job;
		int attempts = rs.getInt("max_attempts");
		Integer maxAttempts = rs.wasNull() ? null : attempts;
		long expire = rs.getLong("expire_after_millis");
		Long expireAfterMillis = rs.wasNull() ? null : expire;
		return new ScheduleRow(rs.getString("name"), rs.getString("handler"), rs.getString("queue"),
				rs.getInt("priority"), maxAttempts, expireAfterMillis, rs.getString("concurrency_key"),
				rs.getString("payload"), rs.getString("cron"), rs.getString("zone"), everyMillis,
				rs.getString("misfire"), rs.getString("overlap"), rs.getString("source"), rs.getBoolean("paused"),
				rs.getBoolean("orphaned"), required(rs, "next_run_at"), this.dialect.getTimestamp(rs, "last_tick_at"),
				this.dialect.getTimestamp(rs, "last_fired_at"), lastJobId, rs.getString("last_job_status"),
				rs.getLong("version"), required(rs, "db_now"));
	}

	private Instant required(ResultSet rs, String column) throws SQLException {
		Instant value = this.dialect.getTimestamp(rs, column);
		if (value == null) {
			throw new IllegalStateException("Column " + column + " is null");
		}
		return value;
	}

}
