package io.sqlqueue.internal.store.mariadb;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcOperations;

import io.sqlqueue.admin.TableHealth;
import io.sqlqueue.internal.store.TableHealthReader;

import static io.sqlqueue.internal.store.TableHealthReader.longOrNull;

/**
 * The queue's tables' health on MariaDB and MySQL (InnoDB), from {@code information_schema}:
 * sizes, free space and estimated rows from {@code TABLES}; the transactions open longest from
 * {@code INNODB_TRX} (with who runs them from {@code PROCESSLIST}), and the undo history that
 * purge has not reclaimed yet from {@code INNODB_METRICS}' {@code trx_rseg_history_len}.
 * InnoDB has no dead rows to count: an update keeps the old version in the undo log, and purge
 * can only remove what no open read view may still need, on every database of the server, so
 * the oldest transaction of the server holds the queue back, and the history length is the
 * garbage waiting. Reading {@code INNODB_TRX} needs the {@code PROCESS} privilege; without
 * it the transactions are not reported and the rest is.
 */
final class MariaDbTableHealth implements TableHealthReader {

	private static final Logger logger = LoggerFactory.getLogger(MariaDbTableHealth.class);

	private static final String TABLES = """
			SELECT TABLE_NAME AS name, TABLE_ROWS AS live_rows, DATA_LENGTH AS data_bytes,
			       INDEX_LENGTH AS index_bytes, DATA_FREE AS free_bytes
			FROM information_schema.TABLES
			WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME IN (%s)
			ORDER BY TABLE_NAME""".formatted(TableHealthReader.tableList());

	private static final String TRANSACTIONS = """
			SELECT t.trx_mysql_thread_id AS pid, CONCAT(p.USER, '@', p.HOST) AS application,
			       CONCAT(t.trx_state, ' (', p.COMMAND, ')') AS state,
			       TIMESTAMPDIFF(MICROSECOND, t.trx_started, NOW(6)) DIV 1000 AS age_millis
			FROM information_schema.INNODB_TRX t
			LEFT JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
			WHERE t.trx_mysql_thread_id <> CONNECTION_ID()
			ORDER BY t.trx_started
			LIMIT %d""".formatted(TableHealthReader.MAX_HOLDERS);

	private static final String HISTORY = """
			SELECT `COUNT` FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'""";

	/** {@code ER_SPECIFIC_ACCESS_DENIED_ERROR}: the user lacks a privilege, here {@code PROCESS}. */
	private static final int ACCESS_DENIED = 1227;

	private final JdbcOperations jdbc;

	/**
	 * Whether the server refused the reads that need {@code PROCESS}: they are not asked again
	 * (each refusal is a WARN line of the driver's, every reading, every minute); a restart of
	 * the instance, after a {@code GRANT}, asks again.
	 */
	private volatile boolean processDenied;

	private final @Nullable String schema;

	MariaDbTableHealth(JdbcOperations jdbc, @Nullable String schema) {
		this.jdbc = jdbc;
		this.schema = schema;
	}

	@Override
	public List<String> statements() {
		return List.of(TABLES, TRANSACTIONS, HISTORY);
	}

	@Override
	public TableHealth read() {
		List<TableHealth.Table> tables = this.jdbc.query(TABLES,
				(rs, row) -> new TableHealth.Table(rs.getString("name"), longOrNull(rs, "live_rows"), null,
						longOrNull(rs, "data_bytes"), longOrNull(rs, "index_bytes"), longOrNull(rs, "free_bytes")),
				this.schema);
		List<String> notReported = new ArrayList<>(List.of("dead rows (InnoDB keeps old versions as undo history)"));
		List<TableHealth.Holder> holders = List.of();
		Long history = null;
		if (this.processDenied) {
			notReported.add("transactions (reading INNODB_TRX needs the PROCESS privilege)");
		}
		else {
			try {
				holders = this.jdbc.query(TRANSACTIONS, (rs, row) -> {
					Long millis = longOrNull(rs, "age_millis");
					return new TableHealth.Holder(TableHealth.TRANSACTION, longOrNull(rs, "pid"), null,
							rs.getString("application"), rs.getString("state"),
							(millis != null) ? Duration.ofMillis(Math.max(0, millis)) : null, null, null);
				});
			}
			catch (DataAccessException ex) {
				denied(ex);
				logger.debug("sqlqueue cannot read InnoDB's transactions", ex);
				notReported.add("transactions (reading INNODB_TRX needs the PROCESS privilege)");
			}
		}
		if (!this.processDenied) {
			try {
				history = this.jdbc.query(HISTORY, (rs) -> rs.next() ? longOrNull(rs, "COUNT") : null);
			}
			catch (DataAccessException ex) {
				denied(ex);
				logger.debug("sqlqueue cannot read InnoDB's history length", ex);
			}
		}
		if (history == null) {
			notReported.add("undo history length");
		}
		return new TableHealth("mariadb", Instant.now(), tables, holders, history, notReported, null);
	}

	/** Notes a refusal for want of {@code PROCESS}, said once, so that it is not asked again. */
	private void denied(DataAccessException ex) {
		if (!this.processDenied && ex.getCause() instanceof SQLException sql && sql.getErrorCode() == ACCESS_DENIED) {
			this.processDenied = true;
			logger.info("sqlqueue reads InnoDB's open transactions and undo history only with the PROCESS "
					+ "privilege, which its database user lacks; the table health reports them as not read, "
					+ "and they are not asked for again until a restart");
		}
	}

}
