package io.sqlqueue.internal.store.mariadb;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.ResultSetExtractor;

import io.sqlqueue.admin.Staleness;
import io.sqlqueue.internal.store.ReplicaLagReader;

/**
 * How far a MariaDB or MySQL replica is behind, from {@code SHOW REPLICA STATUS} (MariaDB
 * 10.5.1+, MySQL 8.0.22+): no row, not a replica; {@code Seconds_Behind_Master}
 * ({@code Seconds_Behind_Source} on MySQL) {@code NULL}, a replication thread is stopped and it
 * receives or applies nothing; else that many seconds, as the server reckons it (the age of the
 * event it applies now, by the primary's clock: 0 when it has applied all it received). Only
 * the default replication connection is read. The statement needs MariaDB's
 * {@code REPLICA MONITOR} (MySQL's {@code REPLICATION CLIENT}) privilege: without it the
 * answer is unknown, with the server's reason.
 */
final class MariaDbReplicaLag implements ReplicaLagReader {

	static final String LAG = "SHOW REPLICA STATUS";

	private final JdbcOperations jdbc;

	MariaDbReplicaLag(JdbcOperations jdbc) {
		this.jdbc = jdbc;
	}

	@Override
	public Staleness read() {
		try {
			return this.jdbc.query(LAG, (ResultSetExtractor<Staleness>) MariaDbReplicaLag::staleness);
		}
		catch (DataAccessException ex) {
			if (!(ex.getRootCause() instanceof SQLException refusal) || refusal.getSQLState() == null
					|| !refusal.getSQLState().startsWith("42")) {
				throw ex;
			}
			// Class 42: a missing privilege, or a server too old for the statement. It answered.
			return Staleness.unknown(Instant.now(), "SHOW REPLICA STATUS was refused (it needs the REPLICA MONITOR "
					+ "or REPLICATION CLIENT privilege, and MariaDB 10.5.1 or MySQL 8.0.22): " + refusal.getMessage());
		}
	}

	private static Staleness staleness(ResultSet rs) throws SQLException {
		Instant now = Instant.now();
		if (!rs.next()) {
			return new Staleness(true, Staleness.State.NOT_A_REPLICA, null, now,
					"SHOW REPLICA STATUS has no row: the read DataSource is not a replica");
		}
		String column = hasColumn(rs, "Seconds_Behind_Master") ? "Seconds_Behind_Master" : "Seconds_Behind_Source";
		long seconds = rs.getLong(column);
		boolean known = !rs.wasNull();
		String threads = "IO thread " + text(rs, "Slave_IO_Running", "Replica_IO_Running") + ", SQL thread "
				+ text(rs, "Slave_SQL_Running", "Replica_SQL_Running");
		if (!known) {
			return new Staleness(true, Staleness.State.NOT_RECEIVING, null, now,
					column + " is NULL: replication is not running (" + threads + ")");
		}
		return (seconds == 0) ? new Staleness(true, Staleness.State.CAUGHT_UP, Duration.ZERO, now, null)
				: new Staleness(true, Staleness.State.BEHIND, Duration.ofSeconds(seconds), now,
						column + " is " + seconds);
	}

	private static boolean hasColumn(ResultSet rs, String name) throws SQLException {
		ResultSetMetaData meta = rs.getMetaData();
		for (int i = 1; i <= meta.getColumnCount(); i++) {
			if (meta.getColumnLabel(i).equalsIgnoreCase(name)) {
				return true;
			}
		}
		return false;
	}

	private static @Nullable String text(ResultSet rs, String mariaDb, String mySql) throws SQLException {
		return rs.getString(hasColumn(rs, mariaDb) ? mariaDb : mySql);
	}

	@Override
	public List<String> statements() {
		return List.of(LAG);
	}

}
