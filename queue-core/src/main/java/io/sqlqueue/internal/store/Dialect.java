package io.sqlqueue.internal.store;

import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.UnaryOperator;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * What differs between database families: a few SQL fragments (the clock, time
 * arithmetic, JSON parameters), how timestamps cross JDBC, and how jobs are claimed.
 * The statements themselves are written once, in {@link JobSql} and the other statement
 * classes of the store, from these pieces.
 * Time always comes from the database's clock (DESIGN.md, promise 5).
 */
public abstract class Dialect {

	/** Lower-case name; also the folder of its migrations, {@code db/sqlqueue/{name}}. */
	public abstract String name();

	/** An expression for the database's current time. */
	public abstract String now();

	/**
	 * An expression for the database's time at this moment, even late in a long transaction
	 * (where {@link #now()} may be the transaction's start).
	 */
	public String currentTime() {
		return now();
	}

	/** An expression for the database's current time plus a bound number of milliseconds (one {@code ?}). */
	public abstract String nowPlusMillis();

	/**
	 * The condition that a queued job's deadline has passed, written so that the deadline
	 * index of this database's migration serves it.
	 */
	public String deadlinePassed() {
		return "status = 'QUEUED' AND deadline IS NOT NULL AND deadline <= " + now();
	}

	/** A bound parameter ({@code ?}) written into a timestamp column. */
	public abstract String timestampParameter();

	/**
	 * A schema name as SQL text, quoted as Flyway quotes it when it creates the schema, so
	 * that both name the same schema whatever the database does with unquoted case.
	 */
	public String quote(String identifier) {
		return "\"" + identifier + "\"";
	}

	/**
	 * A statement that tells listeners of a channel (first parameter) that a queue (second
	 * parameter) got work when the transaction commits, or {@code null} where the database
	 * has no such thing.
	 */
	public @Nullable String notifyStatement() {
		return null;
	}

	/**
	 * Completes many jobs in one statement, where the database can say which rows it
	 * updated; {@code null} to complete them with one statement each (in one round trip).
	 * Parameters: the job ids, their lease tokens, their results and their notes for
	 * {@code last_error} (null keeps it), each as an array;
	 * returns the ids of the jobs it completed, and their {@code awaited} column. It passes
	 * over rows another transaction has locked instead of waiting for them.
	 * @param recordAttempts the attempts' history to write in the same statement
	 * ({@link AttemptSql#recordCompletedFrom}, given the name of the CTE of the completed
	 * rows: {@code id, attempts, lease_owner, started_at, finished_at, status}), or {@code null}
	 */
	public @Nullable String completeAll(String table, @Nullable UnaryOperator<String> recordAttempts) {
		return null;
	}

	/**
	 * Completes jobs in one statement where the database cannot say which rows an
	 * {@code UPDATE} changed ({@link #completeAll} is {@code null}) but can join the table to
	 * rows bound in a derived table; {@code null} to complete them one fenced statement each (a
	 * JDBC batch). The flush's transaction has locked the jobs' rows first and found each
	 * running under its token and settling nothing else, so the statement changes exactly
	 * those rows, and its update count says it did. It stays fenced all the same. Parameters:
	 * for each of {@code rows} jobs its id, lease token, result and note for {@code last_error}
	 * (null keeps it); a row whose id is null matches no job (padding).
	 */
	public @Nullable String completeLocked(String table, int rows) {
		return null;
	}

	/**
	 * Extends many leases in one statement that passes over rows another transaction has
	 * locked instead of waiting for them, where the database can lock rows in a subquery of an
	 * {@code UPDATE}; {@code null} to lock them first with a {@code SELECT … FOR UPDATE SKIP
	 * LOCKED} where the database has that, else to update them one statement each.
	 * Parameters: the job ids and their lease tokens, each as an array, then the lease's
	 * millis; returns the ids of the jobs whose lease it extended.
	 */
	public @Nullable String extendLeases(String table) {
		return null;
	}

	/**
	 * Bounds how long each later statement of the current transaction waits for a row lock
	 * that another transaction holds, where the database lets a transaction say so; returns
	 * what sets the connection back before the transaction ends where the bound is the
	 * session's rather than the transaction's, else {@code null}. Where it does nothing the
	 * database's own bound holds (SQLite's busy timeout).
	 */
	public @Nullable Runnable boundLockWaits(JdbcOperations jdbc, Duration bound) {
		return null;
	}

	/**
	 * Claims queued jobs by id (a limited queue's admitted jobs) in one statement that passes
	 * over rows another transaction has locked instead of waiting for them, where the database
	 * can lock rows in a subquery of an {@code UPDATE}; {@code null} to lock them first with a
	 * {@code SELECT … FOR UPDATE SKIP LOCKED} where the database has that, else to update them
	 * (SQLite, whose one writer holds every row). Parameters: the ids ({@code ids}, the
	 * placeholders), then those of {@code claimedColumns}; returns the ids of the jobs claimed.
	 */
	public @Nullable String claimQueuedPassingOverLocked(String table, String ids, String claimedColumns) {
		return null;
	}

	/**
	 * Inserts many jobs in one statement, or {@code null} to insert them as a JDBC batch of
	 * single-row inserts. Parameters, each an array with one element per job: queue, handler,
	 * payload, priority, run_at (ISO-8601 text, or null), delay millis, max attempts, unique
	 * key, group key, scheduled_for, deadline (ISO-8601 text, or null), expire-after millis, headers,
	 * concurrency key;
	 * returns the ids of the inserted jobs (fewer when a unique key was taken), in job order.
	 */
	public @Nullable String insertAll(String table) {
		return null;
	}

	/**
	 * {@link #insertAll} for jobs that are all {@link NewJob#bare bare}, or {@code null} to
	 * use {@link #insertAll} for them too. Parameters, each an array with one element per
	 * job: queue, handler, payload, priority, max attempts; returns the ids in job order.
	 */
	public @Nullable String insertAllBare(String table) {
		return null;
	}

	/**
	 * What ends a multi-row {@code INSERT … VALUES (…), (…)} so that it returns the id of each
	 * row it inserted, and ascending ids are the order of the {@code VALUES} list; or
	 * {@code null} where the database cannot. Where it can (and {@link #insertAll} is
	 * {@code null}), many jobs are inserted with one such statement per chunk instead of a JDBC
	 * batch of single-row inserts.
	 */
	public @Nullable String insertReturningIds() {
		return null;
	}

	/**
	 * A query answering whether the database leaves dead rows of the table (bound as the
	 * only parameter, by name) unreclaimed, so that the queue must vacuum it itself; or
	 * {@code null} where the database reclaims space on its own.
	 */
	public @Nullable String unvacuumedQuery() {
		return null;
	}

	/**
	 * A statement that makes the rest of the transaction plan each query for its own
	 * parameters, or {@code null} where the database does so anyway. For reads whose best
	 * plan depends on the values (a filter by a rare queue, or by a state that a partial
	 * index covers), which a plan cached for any value would miss.
	 */
	public @Nullable String customPlansStatement() {
		return null;
	}

	/**
	 * The reader of the queue's tables' health on this database ({@link TableHealthReader}):
	 * by default one that reports nothing, for a database with no cheap way to tell.
	 * @param schema the queue's schema as configured, or {@code null} for the connection's own
	 */
	public TableHealthReader tableHealthReader(JdbcOperations jdbc, @Nullable String schema) {
		return TableHealthReader.notReported(name());
	}

	/**
	 * How a read-only replica of this database says how far behind it is
	 * ({@link ReplicaLagReader}): by default it cannot tell, and only checks that it answers.
	 */
	public ReplicaLagReader replicaLagReader(JdbcOperations jdbc) {
		return ReplicaLagReader.unknown(name(), jdbc);
	}

	/**
	 * How the stats count jobs on this database ({@link QueueCounter}): by default
	 * {@code exact}, the one grouped query over the table.
	 * @param table the queue's table, qualified by its schema when one is configured
	 */
	public QueueCounter queueCounter(JdbcOperations jdbc, String table, QueueCounter exact) {
		return exact;
	}

	/**
	 * The oldest transaction id that keeps {@link #vacuumStatement vacuum} from reclaiming
	 * dead rows (the horizon), as text, with no parameters; no row when nothing holds it. Or
	 * {@code null} where nothing needs vacuuming.
	 */
	public @Nullable String horizonQuery() {
		return null;
	}

	/** Reclaims the dead rows of the tables, or {@code null} where nothing needs doing. */
	public @Nullable String vacuumStatement(List<String> tables) {
		return null;
	}

	/**
	 * The deepest nesting of arrays and objects a JSON column takes. 500 is Jackson's own
	 * default limit for reading, so that whatever is stored can be decoded again.
	 */
	public int maxJsonDepth() {
		return 500;
	}

	/**
	 * The text of a field of a JSON column found by a path of object keys, the path bound as
	 * the one parameter ({@link #payloadPath}); {@code null} where the database has no such
	 * function, and a search by payload field is refused. A missing field is {@code NULL}.
	 */
	public @Nullable String jsonFieldText(String column) {
		return null;
	}

	/**
	 * The bound value of {@link #jsonFieldText}'s path for these object keys, each validated
	 * as letters, digits, {@code _} and {@code -} ({@code io.sqlqueue.admin.JobFilter}): by
	 * default a JSON path with every key quoted ({@code $."customer"."id"}).
	 */
	public String payloadPath(List<String> keys) {
		StringBuilder path = new StringBuilder("$");
		keys.forEach((key) -> path.append(".\"").append(key).append('"'));
		return path.toString();
	}

	/** A bound parameter ({@code ?}) written into a JSON column. */
	public String jsonParameter() {
		return "?";
	}

	/** Appended to the single-row insert so that a unique-key conflict inserts nothing instead of failing. */
	public String insertIgnoringDuplicates() {
		return "";
	}

	/**
	 * Appended to an insert of a row that other transactions may be inserting at the same
	 * moment (a queue's flow row, made by the first limit of the queue that any instance
	 * declares), with the row's key column, so that finding it there already inserts nothing;
	 * where the dialect has no such clause the insert fails with a duplicate key, which the
	 * caller expects. Either way the caller locks the row next ({@link #lockFlow}): what this
	 * appends must not leave a lock on the row that two such transactions can both hold, or
	 * each waits for the other to let go of it before it can lock the row for itself.
	 */
	public String insertUnlessPresent(String keyColumn) {
		return insertIgnoringDuplicates();
	}

	/**
	 * Whether the driver returns the generated id of every row of a batched insert; where it
	 * does not, jobs are inserted one statement at a time (in the same transaction).
	 */
	public boolean batchReturnsGeneratedKeys() {
		return true;
	}

	/**
	 * How SQL errors become Spring's exceptions; JobStore relies on a unique-key violation
	 * arriving as a {@code DuplicateKeyException}, and on a lock wait past the bound of
	 * {@link #boundLockWaits} arriving as a {@code CannotAcquireLockException} (a loop then
	 * leaves that job for later): Spring's own translator, by the exception's class, calls it
	 * uncategorized on PostgreSQL and MariaDB and a query timeout on H2.
	 */
	public SQLExceptionTranslator exceptionTranslator(SQLExceptionTranslator springs) {
		return (task, sql, ex) -> isLockWaitTimeout(ex)
				? new CannotAcquireLockException(task + "; " + ex.getMessage(), ex) : springs.translate(task, sql, ex);
	}

	/** Whether the database gave up waiting for a lock, past the bound of {@link #boundLockWaits}. */
	protected boolean isLockWaitTimeout(SQLException ex) {
		return false;
	}

	/**
	 * Locks the flow row of a queue (the first parameter) until the transaction ends, and
	 * reads its {@code version} and window of starts, the database's clock ({@code db_now})
	 * and whether the transaction is READ COMMITTED ({@code read_committed}); every claim of
	 * a limited queue starts with it, so that claims of one queue take turns, and so does
	 * every change of its limits. Only a claim's ({@code claim}) sets what
	 * {@link #flowLockReadings} sets for the rest of its transaction: a change of limits must
	 * wait for the disk when it commits, as its caller is told it has.
	 */
	public final String lockFlow(String flowTable, boolean claim) {
		return """
				SELECT version, window_start, window_starts, previous_starts, %s AS db_now, %s FROM %s
				WHERE queue = ?%s""".formatted(now(), claim ? flowLockReadings() : "1 AS read_committed", flowTable,
				lockRows());
	}

	/**
	 * What {@link #lockFlow} reads besides the row: at least {@code read_committed}, true when
	 * the transaction is READ COMMITTED.
	 */
	protected String flowLockReadings() {
		return "1 AS read_committed";
	}

	/** What makes a {@code SELECT} lock the rows it reads until the transaction ends. */
	protected String lockRows() {
		return "\nFOR UPDATE";
	}

	/**
	 * Whether a limited claim runs at the connection's own isolation, which {@link #lockFlow}
	 * then reports, rather than asking for READ COMMITTED (which costs a round trip per claim
	 * with some drivers).
	 */
	public boolean checksIsolationInFlowLock() {
		return false;
	}

	/**
	 * Writes the rate windows of many keys of a queue in one statement, inserting those that
	 * are new; or {@code null} to update and insert them as JDBC batches. Parameters: the
	 * queue, then the keys, window starts, starts, previous starts and expiries, each as an
	 * array.
	 */
	public @Nullable String upsertRateWindows(String windowTable) {
		return null;
	}

	/**
	 * Whether a row lock taken by a read ({@code FOR UPDATE}) keeps every other writer of the
	 * database off the row. Not on a Galera node (MariaDB's dialect {@link #fittedTo} one at
	 * start-up; a plain MariaDB or MySQL server's lock does), whose cluster lets every node take writes:
	 * a lock stays on its node, and certification, which orders the nodes' transactions at
	 * commit, compares only the keys of rows a transaction wrote; a row locked and not written
	 * (nor one "written" with its own values, which InnoDB leaves alone) is not among them. There
	 * a transaction whose decision rests on a locked row must write it
	 * ({@link FlowLocks#writeLocked}).
	 */
	public boolean rowLocksHoldEveryWriter() {
		return true;
	}

	/**
	 * A statement that takes the database's write lock and changes nothing, run first in a
	 * transaction that reads rows before it writes and needs them to stay as read (an
	 * enqueue's check of the jobs it runs after, {@link #lockFlow} before a limited claim or a
	 * change of limits), where a read cannot lock rows; {@code null} where it can
	 * ({@code FOR UPDATE}). No parameters.
	 * @param jobTable the qualified name of the jobs' table
	 */
	public @Nullable String writeLockFirst(String jobTable) {
		return null;
	}

	/** The claim this database does best. */
	public abstract ClaimMethod claimMethod();

	/**
	 * Whether this database can claim with {@code method}. Compare-and-set works everywhere;
	 * the one-statement claim only where the dialect writes one ({@link #claimReturning}).
	 */
	public boolean supports(ClaimMethod method) {
		return method != ClaimMethod.UPDATE_RETURNING || claimMethod() == ClaimMethod.UPDATE_RETURNING;
	}

	/**
	 * Checks, once at start-up, that the database can run the queue (its version, its
	 * settings), and applies the settings the queue needs that persist in the database
	 * itself; fails with a message that says what is missing. Called by
	 * {@link io.sqlqueue.internal.store.dialect.Dialects#detect} and
	 * {@link io.sqlqueue.internal.store.dialect.Dialects#check}.
	 * @param metaData the metadata of a connection that stays open during the call
	 */
	public void checkDatabase(DatabaseMetaData metaData) throws SQLException {
	}

	/**
	 * This dialect as it best serves the server behind the metadata, once
	 * {@link #checkDatabase} has passed: itself, or one that also uses what that server has
	 * beyond what its family shares (MariaDB's {@code INSERT … RETURNING}, which MySQL lacks).
	 * Called by {@link io.sqlqueue.internal.store.dialect.Dialects#detect} and
	 * {@link io.sqlqueue.internal.store.dialect.Dialects#check}.
	 * @param metaData the metadata of a connection that stays open during the call
	 */
	public Dialect fittedTo(DatabaseMetaData metaData) throws SQLException {
		return this;
	}

	/**
	 * The claim as one statement (for {@link ClaimMethod#UPDATE_RETURNING}): first the
	 * candidates ({@code readyJobs}, then {@code LIMIT ?}), then the update
	 * ({@code claimedColumns}). Parameters in that order: those of {@code readyJobs} (queue, the
	 * handlers, queue), limit, lease owner, lease token, lease millis.
	 * @param table the qualified table name
	 * @param readyJobs the condition on alias {@code j} that a job is ready for this claim
	 */
	public String claimReturning(String table, String readyJobs, String claimedColumns) {
		throw new UnsupportedOperationException(name() + " has no one-statement claim");
	}

	/**
	 * The one-statement claim that starts past a mark (a position in run order: priority,
	 * run_at, id), or {@code null} where the database has none and every claim starts at the
	 * head of the ready jobs. It takes, in run order, due jobs of a higher priority than the
	 * mark's, then those of the mark's priority after it, then those of a lower priority: every
	 * ready job but those of the mark's priority up to the mark. Parameters in that order: those
	 * of {@code readyJobs} and the mark's priority, limit; those of {@code readyJobs} and the
	 * mark's priority, run_at, id, limit; those of {@code readyJobs} and the mark's priority,
	 * limit; the limit; lease owner, lease token, lease millis.
	 * @param table the qualified table name
	 * @param readyJobs the condition on alias {@code j} that a job is ready for this claim
	 */
	public @Nullable String claimReturningPast(String table, String readyJobs, String claimedColumns) {
		return null;
	}

	/** Binds a parameter: a time as this dialect writes times ({@link #setTimestamp}), anything else as the driver does. */
	public void setParameter(PreparedStatement statement, int index, Object value) throws SQLException {
		if (value instanceof Instant at) {
			setTimestamp(statement, index, at);
		}
		else {
			statement.setObject(index, value);
		}
	}

	public void setTimestamp(PreparedStatement statement, int index, @Nullable Instant value) throws SQLException {
		if (value == null) {
			statement.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
		}
		else {
			statement.setObject(index, OffsetDateTime.ofInstant(value, ZoneOffset.UTC));
		}
	}

	/** The timestamp in the named column. */
	public final @Nullable Instant getTimestamp(ResultSet resultSet, String column) throws SQLException {
		return getTimestamp(resultSet, resultSet.findColumn(column));
	}

	/** The timestamp in the column at this index (from 1). */
	public @Nullable Instant getTimestamp(ResultSet resultSet, int column) throws SQLException {
		OffsetDateTime value = resultSet.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

	@Override
	public String toString() {
		return name();
	}

}
