package io.sqlqueue.internal.store;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.admin.TableHealth;

/**
 * The care of the queue's tables beyond their rows: whether the queue must vacuum them
 * itself, the vacuum ({@link JobBulkSql#vacuum}), and their health read from the catalogs
 * ({@link TableHealthReader}).
 */
final class TableUpkeep {

	private static final Logger logger = LoggerFactory.getLogger(TableUpkeep.class);

	private final JdbcTemplate jdbc;

	private final StoreTransactions transactions;

	private final Dialect dialect;

	private final JobBulkSql sql;

	/** The jobs' table's name as {@code regclass} reads it. */
	private final String tableName;

	private final TableHealthReader tableHealth;

	/** The horizon {@link #vacuum()} read before its last vacuum; {@code null} before the first or where none held it. */
	private volatile @Nullable String horizonAtLastVacuum;

	TableUpkeep(StoreContext context, JobBulkSql sql, String tableName, TableHealthReader tableHealth) {
		this.jdbc = context.jdbc();
		this.transactions = context.transactions();
		this.dialect = context.dialect();
		this.sql = sql;
		this.tableName = tableName;
		this.tableHealth = tableHealth;
	}

	/**
	 * Whether nothing but the queue itself will reclaim the table's dead rows: on
	 * PostgreSQL, when autovacuum is off for the server or the table. Every claim and
	 * completion leaves a dead row version behind, so such a table would grow without end.
	 */
	boolean needsOwnVacuum() {
		String query = this.dialect.unvacuumedQuery();
		return query != null && Boolean.TRUE.equals(this.jdbc.queryForObject(query, Boolean.class, this.tableName));
	}

	/**
	 * Reclaims the tables' dead rows where the database needs to be told ({@code VACUUM} on
	 * PostgreSQL): one statement over every table; on a schema older than the code
	 * ({@code sqlqueue.migrate=false}, a table of the list not created yet) that statement
	 * fails whole, so each table is then vacuumed on its own and the missing ones passed over.
	 * <p>
	 * Not while the horizon stays where it was at this store's last vacuum (the same oldest
	 * transaction holds it): every row that died since died after that transaction began, so
	 * nothing has become reclaimable, and a vacuum would read every page of tables that grow
	 * by the minute under load (seconds of the database's time each minute) to reclaim nothing.
	 */
	boolean vacuum() {
		if (this.sql.vacuum == null) {
			return false;
		}
		String horizon = horizon();
		if (horizon != null && horizon.equals(this.horizonAtLastVacuum)) {
			logger.debug("sqlqueue did not vacuum: transaction {} still holds the horizon, as at the last vacuum",
					horizon);
			return false;
		}
		try {
			this.jdbc.execute(this.sql.vacuum);
		}
		catch (BadSqlGrammarException ex) {
			for (String statement : this.sql.vacuumEach) {
				try {
					this.jdbc.execute(statement);
				}
				catch (BadSqlGrammarException missing) {
					logger.debug("sqlqueue passed over a table its schema does not have: {}", statement, missing);
				}
			}
		}
		this.horizonAtLastVacuum = horizon;
		return true;
	}

	/**
	 * The horizon's oldest transaction, or {@code null} where none holds it or it cannot be
	 * read: a role that may vacuum but not read one of the views must not stop the vacuum.
	 */
	private @Nullable String horizon() {
		if (this.sql.horizon == null) {
			return null;
		}
		try {
			List<String> oldest = this.jdbc.queryForList(this.sql.horizon, String.class);
			return oldest.isEmpty() ? null : oldest.get(0);
		}
		catch (DataAccessException ex) {
			logger.debug("sqlqueue could not read the horizon; vacuuming all the same", ex);
			return null;
		}
	}

	/**
	 * The health of the queue's tables, read now by this database's {@link TableHealthReader}:
	 * catalog and statistics reads only, meant for a schedule rather than for every look. In a
	 * transaction of its own whose lock waits are bounded by {@link StoreTransactions#OWN_LOCK_WAIT}:
	 * PostgreSQL's size functions take a table's {@code ACCESS SHARE} lock, which waits behind
	 * DDL, a {@code LOCK TABLE} or a {@code VACUUM FULL} on it; past the bound the reading
	 * fails, to be taken again at the next pass.
	 */
	TableHealth tableHealth() {
		return this.transactions.inNewTransaction(() -> {
			Runnable reset = this.dialect.boundLockWaits(this.jdbc, StoreTransactions.OWN_LOCK_WAIT);
			try {
				return this.tableHealth.read();
			}
			finally {
				if (reset != null) {
					reset.run();
				}
			}
		});
	}

}
