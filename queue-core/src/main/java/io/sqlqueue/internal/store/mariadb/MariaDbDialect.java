package io.sqlqueue.internal.store.mariadb;

import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcOperations;

import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.ServerVersion;
import io.sqlqueue.internal.store.ReplicaLagReader;
import io.sqlqueue.internal.store.TableHealthReader;

/**
 * MariaDB 10.6+ and MySQL 8.0.1+ (InnoDB), one dialect for both: the SQL below is what
 * both accept, and the migrations in {@code db/sqlqueue/mariadb} serve both.
 * <p>
 * <b>Claim</b>: {@link ClaimMethod#LOCK_THEN_UPDATE}, i.e. {@code SELECT … FOR UPDATE
 * SKIP LOCKED LIMIT ?} then {@code UPDATE … WHERE id IN (…)} in one short transaction
 * (neither server can lock in a subquery of an {@code UPDATE} with {@code SKIP LOCKED}
 * and a {@code LIMIT}, nor return the updated rows). {@code SKIP LOCKED} came with
 * MariaDB 10.6 and MySQL 8.0.1: {@link #checkDatabase} refuses older servers at start-up.
 * <p>
 * <b>Isolation</b>: {@link io.sqlqueue.internal.store.JobStore} runs that transaction under READ COMMITTED, on
 * purpose. Under InnoDB's default REPEATABLE READ, a locking read takes next-key locks:
 * the scanned index records <em>and the gaps between them</em> (and the gap after the
 * last one). Those gap locks block every concurrent enqueue whose row falls in a locked
 * gap (its insert-intention lock waits), and two claims plus an enqueue then deadlock
 * each other. Under READ COMMITTED InnoDB takes no gap locks for searches and releases
 * the locks of rows that did not match, so a claim locks exactly the rows it picks.
 * The ready index matches the claim's {@code ORDER BY} so that InnoDB reads (and
 * locks) only the rows it returns instead of every ready row of the queue before a
 * sort; descending index parts need MariaDB 10.8+ or MySQL 8 (10.6 and 10.7 accept the
 * index but sort, which is correct, only slower under load).
 * <p>
 * <b>Time</b>: {@code DATETIME(6)} columns hold UTC, written from {@code UTC_TIMESTAMP(6)}
 * (the database's clock whatever the session time zone) and bound and read as UTC
 * {@link LocalDateTime}s.
 * <p>
 * <b>Names</b> are {@code utf8mb4_bin}, so {@code Mail} and {@code mail} are two queues
 * here as on every other database. <b>JSON</b> is {@code LONGTEXT} checked with
 * {@code JSON_VALID}: what MariaDB's own {@code JSON} type is, and on MySQL the text is
 * kept as the codec wrote it instead of being normalized by MySQL's binary {@code JSON}.
 * <p>
 * <b>MariaDB or MySQL</b>: {@code new MariaDbDialect()} writes only what both accept;
 * {@link #fittedTo} gives the one for a MariaDB server, which also inserts many jobs with one
 * {@code INSERT … RETURNING} ({@link #insertReturningIds}; MariaDB 10.5+, MySQL has none) and
 * records a completion flush with one {@code UPDATE} ({@link #completeLocked}).
 * <p>
 * <b>Driver</b>: JobStore reads fenced writes' batch update counts (a count of 0 is a lost
 * lease). MariaDB Connector/J 3.2+ returns real counts by default; do not set
 * {@code useBulkStmts=true}, which makes them {@code SUCCESS_NO_INFO}.
 */
public final class MariaDbDialect extends Dialect {

	private final boolean mariaDb;

	/** Whether the server is a Galera node ({@code wsrep_on}), as {@link #fittedTo} found it at start-up. */
	private final boolean galeraNode;

	/** For MariaDB and MySQL alike: only what both accept. */
	public MariaDbDialect() {
		this(false, false);
	}

	private MariaDbDialect(boolean mariaDb, boolean galeraNode) {
		this.mariaDb = mariaDb;
		this.galeraNode = galeraNode;
	}

	/** For a MariaDB server (10.6+, as {@link #checkDatabase} requires), never MySQL, nor a Galera node. */
	public static MariaDbDialect forMariaDb() {
		return new MariaDbDialect(true, false);
	}

	/**
	 * {@link #forMariaDb} on a MariaDB server, else this one; and on a Galera node (MariaDB's, or a
	 * MySQL cluster's), one whose row locks do not hold every writer ({@link #rowLocksHoldEveryWriter}).
	 * Asked of the server, once, at start-up: a plain server never pays for what only a cluster needs.
	 */
	@Override
	public Dialect fittedTo(DatabaseMetaData metaData) throws SQLException {
		boolean mariaDb = this.mariaDb || isMariaDb(metaData);
		boolean galeraNode = GaleraSettings.isGaleraNode(metaData.getConnection());
		return (mariaDb == this.mariaDb && galeraNode == this.galeraNode) ? this
				: new MariaDbDialect(mariaDb, galeraNode);
	}

	/**
	 * The flush's jobs as a derived table of bound rows, joined by id; a multi-table
	 * {@code UPDATE} changes each row once. The join is written in the one order that touches
	 * no other row: the derived table first, then each job's row by the primary key. Left to
	 * itself, on a small table the optimizer read the jobs' table first, whole, and a
	 * multi-table {@code UPDATE} waits for the lock of every row it reads, even under READ
	 * COMMITTED: a row held by a caller's open transaction held up the whole flush.
	 * Used on MariaDB only, where it is tested; on MySQL the flush stays a JDBC batch.
	 */
	@Override
	public @Nullable String completeLocked(String table, int rows) {
		if (!this.mariaDb) {
			return null;
		}
		String jobs = "SELECT ? AS id, ? AS lease_token, ? AS result, ? AS note"
				+ "\n        UNION ALL SELECT ?, ?, ?, ?".repeat(rows - 1);
		return """
				UPDATE (%2$s) d
				STRAIGHT_JOIN %1$s j FORCE INDEX (PRIMARY) ON j.id = d.id
				SET j.status = 'SUCCEEDED', j.result = d.result, j.last_error = COALESCE(d.note, j.last_error),
				    j.finished_at = UTC_TIMESTAMP(6), j.updated_at = UTC_TIMESTAMP(6), j.lease_expires_at = NULL,
				    j.version = j.version + 1
				WHERE j.lease_token = d.lease_token AND j.status = 'RUNNING' AND j.settles = 0""".formatted(table, jobs);
	}

	/**
	 * MariaDB's {@code INSERT … RETURNING}: returns each row as it is written, in the order of
	 * the {@code VALUES} list, and the {@code AUTO_INCREMENT} counter only grows, so ascending
	 * ids are that order whatever {@code innodb_autoinc_lock_mode} (a statement's ids need not
	 * be consecutive). MySQL has no {@code RETURNING}; {@code LAST_INSERT_ID()} gives only a
	 * multi-row insert's first id, and the rest follow from it only where the lock mode keeps a
	 * statement's ids consecutive (not MySQL 8's default, 2) and {@code auto_increment_increment}
	 * is known: so MySQL keeps the JDBC batch.
	 */
	@Override
	public @Nullable String insertReturningIds() {
		return this.mariaDb ? "\nRETURNING id" : null;
	}

	@Override
	public String name() {
		return "mariadb";
	}

	@Override
	public String now() {
		return "UTC_TIMESTAMP(6)";
	}

	@Override
	public String nowPlusMillis() {
		return "(UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)";
	}

	@Override
	public String timestampParameter() {
		return "CAST(? AS DATETIME(6))";
	}

	@Override
	public String quote(String identifier) {
		return "`" + identifier + "`";
	}

	/** {@code JSON_VALID} is false for 32 or more levels of nesting (MariaDB's JSON_DEPTH_LIMIT). */
	/** The field as text, a string without its quotes (MariaDB 10.6+ and MySQL 8 alike). */
	@Override
	public String jsonFieldText(String column) {
		return "JSON_UNQUOTE(JSON_EXTRACT(" + column + ", ?))";
	}

	@Override
	public int maxJsonDepth() {
		return 31;
	}

	/** {@code ER_LOCK_WAIT_TIMEOUT}: {@code innodb_lock_wait_timeout} passed. */
	@Override
	protected boolean isLockWaitTimeout(SQLException ex) {
		return ex.getErrorCode() == 1205;
	}

	/**
	 * InnoDB's bound is the session's, in whole seconds (at least one): the session's own is
	 * kept in a user variable, set back before the transaction ends.
	 */
	@Override
	public @Nullable Runnable boundLockWaits(JdbcOperations jdbc, Duration bound) {
		long seconds = Math.max(1, (bound.toMillis() + 999) / 1000);
		jdbc.execute("SET @sqlqueue_lock_wait = @@SESSION.innodb_lock_wait_timeout, "
				+ "SESSION innodb_lock_wait_timeout = " + seconds);
		return () -> jdbc.execute("SET SESSION innodb_lock_wait_timeout = @sqlqueue_lock_wait");
	}

	/** Without partial indexes, the index is on a generated column: the deadline while queued, else null. */
	@Override
	public String deadlinePassed() {
		return "queued_deadline <= " + now();
	}

	/**
	 * A write of the row found there already, which locks it exclusively at once. A duplicate
	 * key error, or {@code INSERT IGNORE}, leaves a shared lock on the row until the
	 * transaction ends, whatever its isolation; three transactions that made the same flow row
	 * at once then deadlocked: the two that found it there both held the shared lock, and each
	 * waited for the other's to lock the row for its change.
	 */
	@Override
	public String insertUnlessPresent(String keyColumn) {
		return " ON DUPLICATE KEY UPDATE %s = %s".formatted(keyColumn, keyColumn);
	}

	/**
	 * Not on a Galera node, whose cluster certifies written rows only: see
	 * {@link Dialect#rowLocksHoldEveryWriter}. A plain server's InnoDB row lock holds every writer.
	 */
	@Override
	public boolean rowLocksHoldEveryWriter() {
		return !this.galeraNode;
	}

	@Override
	public ReplicaLagReader replicaLagReader(JdbcOperations jdbc) {
		return new MariaDbReplicaLag(jdbc);
	}

	@Override
	public TableHealthReader tableHealthReader(JdbcOperations jdbc, @Nullable String schema) {
		return new MariaDbTableHealth(jdbc, schema);
	}

	@Override
	public ClaimMethod claimMethod() {
		return ClaimMethod.LOCK_THEN_UPDATE;
	}

	@Override
	public void setTimestamp(PreparedStatement statement, int index, @Nullable Instant value) throws SQLException {
		if (value == null) {
			statement.setNull(index, Types.TIMESTAMP);
		}
		else {
			statement.setObject(index, LocalDateTime.ofInstant(value, ZoneOffset.UTC));
		}
	}

	@Override
	public @Nullable Instant getTimestamp(ResultSet resultSet, int column) throws SQLException {
		LocalDateTime value = resultSet.getObject(column, LocalDateTime.class);
		return (value != null) ? value.toInstant(ZoneOffset.UTC) : null;
	}

	/**
	 * Refuses servers without {@code SKIP LOCKED}: MariaDB before 10.6, MySQL before 8.0.1; and a
	 * Galera node without the settings the queue needs ({@link GaleraSettings}).
	 */
	@Override
	public void checkDatabase(DatabaseMetaData metaData) throws SQLException {
		String product = metaData.getDatabaseProductName();
		String text = metaData.getDatabaseProductVersion();
		ServerVersion version = ServerVersion.parse(text);
		boolean mariaDb = isMariaDb(metaData);
		boolean supported = (version != null)
				&& (mariaDb ? version.isAtLeast(10, 6, 0) : version.isAtLeast(8, 0, 1));
		if (!supported) {
			throw new IllegalStateException("sqlqueue needs MariaDB 10.6+ or MySQL 8.0.1+ (for FOR UPDATE SKIP LOCKED), "
					+ "but the database is " + (mariaDb ? "MariaDB" : product) + " " + text);
		}
		if (mariaDb) {
			GaleraSettings.check(metaData.getConnection());
		}
	}

	private static boolean isMariaDb(DatabaseMetaData metaData) throws SQLException {
		// MySQL's own driver calls a MariaDB server "MySQL"; its version says MariaDB.
		return (metaData.getDatabaseProductName() + " " + metaData.getDatabaseProductVersion()).toLowerCase(Locale.ROOT)
			.contains("mariadb");
	}

}
