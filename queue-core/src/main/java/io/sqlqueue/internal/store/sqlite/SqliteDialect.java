package io.sqlqueue.internal.store.sqlite;

import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.support.SQLExceptionTranslator;

import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.ServerVersion;

/**
 * SQLite 3.35+ (through {@code org.xerial:sqlite-jdbc}), for one application on one host.
 * <p>
 * <b>One writer at a time.</b> SQLite locks the whole database for a write; it has no row
 * locks and no {@code SKIP LOCKED}. The claim is therefore one statement,
 * {@code UPDATE … WHERE id IN (SELECT … LIMIT ?) RETURNING *}: the candidates are chosen
 * and taken under the one write lock, so two claims (threads, pools or processes on the
 * same file) can never take the same job. ({@code RETURNING} needs 3.35.)
 * <p>
 * <b>WAL and busy timeout.</b> At start-up ({@link #checkDatabase}) the queue switches the
 * file to WAL mode, which SQLite remembers in the file: readers then never block the
 * writer nor the writer readers, and a second process on the same file works the same
 * way. A writer that finds the lock taken waits up to the connection's busy timeout
 * instead of failing at once; that timeout is a setting of each connection, so it belongs
 * in the JDBC URL ({@code jdbc:sqlite:app.db?busy_timeout=10000}, the driver's default is
 * 3000 ms) and start-up fails if a connection has none. The database must be a file:
 * an in-memory database is private to one connection, so a pool cannot share it.
 * <p>
 * <b>Time</b> is text in UTC, {@code YYYY-MM-DD HH:MM:SS.SSS}, the format of SQLite's
 * own {@code strftime('%Y-%m-%d %H:%M:%f', 'now')}: fixed width, so text order is time
 * order and comparisons with the database's clock are plain string comparisons, and
 * readable with SQLite's date functions.
 */
public final class SqliteDialect extends Dialect {

	private static final String NOW = "strftime('%Y-%m-%d %H:%M:%f', 'now')";

	private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS",
			Locale.ROOT);

	private static final int SQLITE_CONSTRAINT = 19;

	/** Busy timeouts below this make a claim fail instead of waiting for the writer ahead of it. */
	static final int MIN_BUSY_TIMEOUT_MILLIS = 1000;

	@Override
	public String name() {
		return "sqlite";
	}

	@Override
	public String now() {
		return NOW;
	}

	@Override
	public String nowPlusMillis() {
		// A modifier such as '1.5 seconds'; millisecond precision like 'now' itself.
		return "strftime('%Y-%m-%d %H:%M:%f', 'now', (CAST(? AS REAL) / 1000) || ' seconds')";
	}

	/**
	 * {@code json_extract} answers a string without its quotes, a number as a number and
	 * {@code true}/{@code false} as 1/0; cast to text so that every field compares as text.
	 */
	@Override
	public String jsonFieldText(String column) {
		return "CAST(json_extract(" + column + ", ?) AS TEXT)";
	}

	@Override
	public String timestampParameter() {
		return "?";
	}

	/**
	 * The xerial driver reads {@code last_insert_rowid()}, the last row's id only. One insert
	 * at a time costs no round trips here: SQLite runs inside this process.
	 */
	@Override
	public boolean batchReturnsGeneratedKeys() {
		return false;
	}

	/**
	 * Spring has no error codes for SQLite: a unique-key violation would arrive
	 * uncategorized. SQLite reports it as {@code SQLITE_CONSTRAINT} (19) with this message.
	 */
	@Override
	public SQLExceptionTranslator exceptionTranslator(SQLExceptionTranslator springs) {
		return (task, sql, ex) -> {
			String message = String.valueOf(ex.getMessage());
			if (ex.getErrorCode() == SQLITE_CONSTRAINT
					&& (message.contains("UNIQUE constraint failed") || message.contains("SQLITE_CONSTRAINT_UNIQUE"))) {
				return new DuplicateKeyException(task + "; " + message, ex);
			}
			return springs.translate(task, sql, ex);
		};
	}

	@Override
	public ClaimMethod claimMethod() {
		return ClaimMethod.UPDATE_RETURNING;
	}

	/** No {@code FOR UPDATE SKIP LOCKED} here: the one-statement claim, or compare-and-set. */
	@Override
	public boolean supports(ClaimMethod method) {
		return method != ClaimMethod.LOCK_THEN_UPDATE;
	}

	/**
	 * The candidates in a CTE ahead of the {@code UPDATE}, which keeps the bound parameters
	 * in the order {@link Dialect#claimReturning} promises (candidates first), as the
	 * {@code UPDATE … SET … WHERE id IN (SELECT …)} text order would not.
	 */
	@Override
	public String claimReturning(String table, String readyJobs, String claimedColumns) {
		return """
				WITH picked AS MATERIALIZED (
				    SELECT j.id FROM %1$s j
				    WHERE %2$s
				    ORDER BY j.priority DESC, j.run_at, j.id
				    LIMIT ?)
				UPDATE %1$s SET %3$s
				WHERE id IN (SELECT id FROM picked)
				RETURNING *""".formatted(table, readyJobs, claimedColumns);
	}

	/** No row locks: the transaction's one write lock, taken by {@link #writeLockFirst}, serves. */
	@Override
	protected String lockRows() {
		return "";
	}

	/**
	 * An update of no row, which takes the write lock all the same: a transaction that began
	 * with a read fails at its first write with SQLITE_BUSY, at once, when another connection
	 * wrote since its read (its WAL snapshot is stale; the busy timeout does not help), whereas
	 * one that begins with a write waits its turn.
	 */
	@Override
	public String writeLockFirst(String jobTable) {
		return "UPDATE %s SET version = version WHERE id = -1".formatted(jobTable);
	}

	@Override
	public void setTimestamp(PreparedStatement statement, int index, @Nullable Instant value) throws SQLException {
		statement.setString(index, (value != null) ? format(value) : null);
	}

	@Override
	public @Nullable Instant getTimestamp(ResultSet resultSet, int column) throws SQLException {
		String value = resultSet.getString(column);
		return (value != null) ? LocalDateTime.parse(value, FORMAT).toInstant(ZoneOffset.UTC) : null;
	}

	static String format(Instant value) {
		return FORMAT.format(LocalDateTime.ofInstant(value.truncatedTo(ChronoUnit.MILLIS), ZoneOffset.UTC));
	}

	/** SQLite 3.35+, a file, WAL mode (set here, kept by the file), and a busy timeout. */
	@Override
	public void checkDatabase(DatabaseMetaData metaData) throws SQLException {
		String text = metaData.getDatabaseProductVersion();
		ServerVersion version = ServerVersion.parse(text);
		if (version == null || !version.isAtLeast(3, 35, 0)) {
			throw new IllegalStateException("sqlqueue needs SQLite 3.35+ (for UPDATE … RETURNING), but the database is "
					+ "SQLite " + text + "; use a newer org.xerial:sqlite-jdbc");
		}
		try (Statement statement = metaData.getConnection().createStatement()) {
			String mode = pragma(statement, "journal_mode");
			if (!"wal".equalsIgnoreCase(mode)) {
				// Outside any transaction (Flyway's migrations run in one, where SQLite refuses this).
				mode = pragma(statement, "journal_mode = WAL");
			}
			if (!"wal".equalsIgnoreCase(mode)) {
				throw new IllegalStateException("sqlqueue needs SQLite in WAL mode, but the database stays in '" + mode
						+ "' mode (" + metaData.getURL() + "); use a database file, not an in-memory database");
			}
			String busyTimeout = pragma(statement, "busy_timeout");
			if (busyTimeout == null || Integer.parseInt(busyTimeout) < MIN_BUSY_TIMEOUT_MILLIS) {
				throw new IllegalStateException("sqlqueue needs a SQLite busy timeout of at least "
						+ MIN_BUSY_TIMEOUT_MILLIS + " ms on every connection, but it is " + busyTimeout
						+ " ms; set it in the JDBC URL, e.g. jdbc:sqlite:app.db?busy_timeout=10000");
			}
		}
	}

	private static @Nullable String pragma(Statement statement, String pragma) throws SQLException {
		try (ResultSet result = statement.executeQuery("PRAGMA " + pragma)) {
			return result.next() ? result.getString(1) : null;
		}
	}

}
