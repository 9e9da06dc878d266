package io.sqlqueue.internal.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;


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

	private final StoreTransactions transactions;

	private final ScheduleSql sql;

	public ScheduleStore(DataSource dataSource, Dialect dialect, @Nullable String schema) {
		this(StoreContext.on(dataSource, dialect), schema);
	}

	/** The schedule store of a store, on its context. */
	ScheduleStore(StoreContext context, @Nullable String schema) {
		this.dialect = context.dialect();
		this.jdbc = context.jdbc();
		this.transactions = context.transactions();
		this.sql = new ScheduleSql(this.dialect, schema);
	}

	/** Every schedule, by name. */
	public List<ScheduleRow> all() {
		return this.jdbc.query(this.sql.all, this::mapRow);
	}

	public Optional<ScheduleRow> find(String name) {
		return this.jdbc.query(this.sql.find, this::mapRow, name).stream().findFirst();
	}

	/** Schedules due now (database clock), not paused nor orphaned, the most overdue first. */
	public List<ScheduleRow> due(int limit) {
		return this.jdbc.query(this.sql.due, this::mapRow, limit);
	}

	/** The database's clock now. */
	public Instant now() {
		return this.jdbc.query(this.sql.now,
				(rs) -> rs.next() ? this.dialect.getTimestamp(rs, "db_now") : null);
	}

	/** Runs {@code work} in one READ COMMITTED transaction, which enqueues join. */
	public <T> T inTransaction(Supplier<T> work) {
		return this.transactions.inCallerOrNewReadCommitted(work);
	}

	/** Inserts a schedule; false when one of that name exists. */
	public boolean insert(ScheduleRow row) {
		try {
			return this.jdbc.update(this.sql.insert, (ps) -> {
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
		return this.jdbc.update(this.sql.updateDefinition, (ps) -> {
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
		return this.jdbc.update(this.sql.setPaused, (ps) -> {
					ps.setBoolean(1, paused);
					this.dialect.setTimestamp(ps, 2, nextRunAt);
					ps.setString(3, name);
					ps.setLong(4, version);
				}) == 1;
	}

	/**
	 * Marks a schedule of {@code source} orphaned (its declaration left the code): it stops
	 * firing. Only when no live instance declares it: false, changing nothing, while its
	 * {@code declared_until} is ahead of the database's clock (see {@link #declared}), or when
	 * it is orphaned already, gone, or of another source.
	 */
	public boolean orphan(String name, String source) {
		return this.jdbc.update(this.sql.orphan, name, source) == 1;
	}

	/**
	 * {@link #orphan} in a transaction of its own, passing over a row that another transaction
	 * holds (where the database can tell): false then. For a background pass, which must not
	 * wait for a caller's open transaction.
	 */
	public boolean orphanUnlessHeld(String name, String source) {
		return inTransaction(() -> lockedUnlessHeld(name) && orphan(name, source));
	}

	/**
	 * {@link #declared} of one schedule in a transaction of its own, passing over a row that
	 * another transaction holds (where the database can tell): false then, and the
	 * declaration is kept at the next refresh. For a background pass.
	 */
	public boolean keepDeclared(String name, Duration lifetime) {
		return inTransaction(() -> {
			if (!lockedUnlessHeld(name)) {
				return false;
			}
			long millis = lifetime.toMillis();
			return this.jdbc.update(this.sql.declared, millis, name, millis) == 1;
		});
	}

	private boolean lockedUnlessHeld(String name) {
		return this.sql.lockNameUnlessHeld == null
				|| !this.jdbc.queryForList(this.sql.lockNameUnlessHeld, String.class, name).isEmpty();
	}

	/**
	 * Keeps the named schedules declared by this instance for {@code lifetime} from now
	 * (database clock): each one's {@code declared_until} moves to then, never back (another
	 * instance may keep it for longer), and one that was orphaned fires again. Their
	 * definitions stay as they are; a schedule that is gone (an operator deleted it) stays gone.
	 */
	public void declared(Collection<String> names, Duration lifetime) {
		if (names.isEmpty()) {
			return;
		}
		long millis = lifetime.toMillis();
		this.jdbc.batchUpdate(this.sql.declared, names.stream().map((name) -> new Object[] { millis, name, millis })
			.toList());
	}

	public boolean delete(String name) {
		return this.jdbc.update(this.sql.delete, name) == 1;
	}

	/**
	 * Takes the schedule for a change if nobody changed it since {@code version} was read,
	 * waiting for the row if another transaction holds it (an operation's, on behalf of its
	 * caller); inside {@link #inTransaction}, the row then stays this transaction's until it
	 * ends.
	 */
	public boolean take(String name, long version) {
		return this.jdbc.update(this.sql.take, name, version) == 1;
	}

	/**
	 * Takes the schedule's due tick as {@link #take} does, inside {@link #inTransaction}, but
	 * passes over a row that another transaction holds, where the database can tell
	 * ({@code SKIP LOCKED}): false then, as when the version moved. A firing must not wait for
	 * a caller's open transaction, nor hold up the other schedules meanwhile.
	 */
	public boolean takeUnlessHeld(String name, long version) {
		if (this.sql.lockUnlessHeld != null
				&& this.jdbc.queryForList(this.sql.lockUnlessHeld, String.class, name, version).isEmpty()) {
			return false;
		}
		return take(name, version);
	}

	/**
	 * Moves a taken schedule on: its next due time, the latest tick handled, and, when a job
	 * was enqueued ({@code lastJobId} not null), that job and the time of firing.
	 */
	public void advance(String name, Instant nextRunAt, @Nullable Instant lastTick, @Nullable Long lastJobId) {
		String statement = (lastJobId != null) ? this.sql.advanceFired : this.sql.advance;
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
				rs.getLong("version"), required(rs, "db_now"), this.dialect.getTimestamp(rs, "declared_until"));
	}

	private Instant required(ResultSet rs, String column) throws SQLException {
		Instant value = this.dialect.getTimestamp(rs, column);
		if (value == null) {
			throw new IllegalStateException("Column " + column + " is null");
		}
		return value;
	}

}
