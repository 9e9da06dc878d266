package io.sqlqueue.benchmark;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A transaction another session keeps open for as long as this object lives, as a report
 * query, {@code pg_dump} or a forgotten {@code psql} does: PostgreSQL only, {@code REPEATABLE
 * READ}, its snapshot taken and a transaction id assigned ({@code txid_current()}), so no
 * vacuum can remove a row version that died after it began. It reads no queue table, so it
 * holds no lock that a {@code TRUNCATE} would wait for.
 */
final class HeldHorizon implements AutoCloseable {

	private final Connection connection;

	private final long transactionId;

	private HeldHorizon(Connection connection, long transactionId) {
		this.connection = connection;
		this.transactionId = transactionId;
	}

	/** Opens the transaction on its own connection and holds it until {@link #close()}. */
	static HeldHorizon hold(Target target) {
		if (!target.isPostgres()) {
			throw new IllegalArgumentException("A held horizon is measured on PostgreSQL only");
		}
		try {
			Connection connection = DriverManager.getConnection(target.url(), target.user(), target.password());
			connection.setAutoCommit(false);
			connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
			try (Statement statement = connection.createStatement();
					ResultSet row = statement.executeQuery("SELECT txid_current()")) {
				row.next();
				return new HeldHorizon(connection, row.getLong(1));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not hold the horizon", ex);
		}
	}

	/** The held transaction's id: no row version deleted by a later transaction can be vacuumed. */
	long transactionId() {
		return this.transactionId;
	}

	@Override
	public void close() {
		try (Connection connection = this.connection) {
			connection.rollback();
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not release the horizon", ex);
		}
	}

}
