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
			try (Statement statement = this.connection.createStatement()) {
				if (target.isPostgres()) {
					statement.execute("BEGIN ISOLATION LEVEL REPEATABLE READ");
					statement.execute("SELECT 1");
					statement.execute("SELECT txid_current()");
				}
				else {
					// MariaDB/MySQL: a read view taken now, which holds back purge.
					statement.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not hold the horizon", ex);
		}
	}

	@Override
	public void close() {
		try (this.connection; Statement statement = this.connection.createStatement()) {
			statement.execute("ROLLBACK");
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
