package io.sqlqueue.benchmark;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A transaction that holds the database's horizon while it is open: {@code REPEATABLE READ},
 * with a snapshot taken and (on PostgreSQL) an xid assigned, as a long report, {@code pg_dump}
 * or a logical replication slot does. Row versions that die after it began stay until it ends:
 * vacuum cannot remove them, nor can index scans mark their entries dead.
 */
final class HeldHorizon implements AutoCloseable {

	private final Connection connection;

	HeldHorizon(Target target) {
		try {
			this.connection = DriverManager.getConnection(target.url(), target.user(), target.password());
			this.connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
			this.connection.setAutoCommit(false);
			try (Statement statement = this.connection.createStatement()) {
				statement.execute("SELECT 1");
				if (target.isPostgres()) {
					statement.execute("SELECT txid_current()");
				}
				else {
					// MariaDB/MySQL: a consistent read view that holds back purge.
					statement.execute("SELECT COUNT(*) FROM information_schema.tables WHERE 1 = 0");
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not hold the horizon", ex);
		}
	}

	@Override
	public void close() {
		try (this.connection) {
			this.connection.rollback();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
