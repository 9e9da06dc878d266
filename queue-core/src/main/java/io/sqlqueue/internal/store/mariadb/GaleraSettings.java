package io.sqlqueue.internal.store.mariadb;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start-up check of a MariaDB Galera node ({@code wsrep_on}), where every node takes
 * writes: what the queue needs of the cluster's settings (docs/databases.md). Galera replicates
 * row events only ({@code binlog_format=ROW}), and with more than one writer InnoDB's
 * auto-increment lock must not be the table-level one ({@code innodb_autoinc_lock_mode=2}),
 * which Galera's appliers cannot take in order. A plain MariaDB or MySQL server is left alone.
 */
final class GaleraSettings {

	private static final Logger logger = LoggerFactory.getLogger(GaleraSettings.class);

	private static final String VARIABLES = "SHOW GLOBAL VARIABLES WHERE Variable_name IN "
			+ "('wsrep_on', 'binlog_format', 'innodb_autoinc_lock_mode', 'wsrep_cluster_name')";

	private GaleraSettings() {
	}

	/** Whether the server is a Galera node ({@code wsrep_on}), MariaDB's or a MySQL cluster's. */
	static boolean isGaleraNode(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("SHOW GLOBAL VARIABLES LIKE 'wsrep_on'")) {
			return rs.next() && "ON".equalsIgnoreCase(rs.getString(2));
		}
	}

	/** Refuses a Galera node without the settings the queue needs; logs the cluster it runs on. */
	static void check(Connection connection) throws SQLException {
		Map<String, String> variables = new HashMap<>();
		try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(VARIABLES)) {
			while (rs.next()) {
				variables.put(rs.getString(1).toLowerCase(Locale.ROOT), rs.getString(2));
			}
		}
		if (!"ON".equalsIgnoreCase(variables.get("wsrep_on"))) {
			return;
		}
		String binlogFormat = variables.get("binlog_format");
		String autoincLockMode = variables.get("innodb_autoinc_lock_mode");
		if (!"ROW".equalsIgnoreCase(binlogFormat) || !"2".equals(autoincLockMode)) {
			throw new IllegalStateException("sqlqueue on a MariaDB Galera node needs binlog_format=ROW and "
					+ "innodb_autoinc_lock_mode=2 (interleaved), which Galera needs with more than one writer; this "
					+ "node has binlog_format=" + binlogFormat + " and innodb_autoinc_lock_mode=" + autoincLockMode
					+ " (see docs/databases.md)");
		}
		logger.info("sqlqueue runs on a node of the Galera cluster '{}': transactions another node wins at "
				+ "commit are tried again (docs/high-availability.md)", variables.get("wsrep_cluster_name"));
	}

}
