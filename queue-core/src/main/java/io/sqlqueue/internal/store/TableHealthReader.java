package io.sqlqueue.internal.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.admin.TableHealth;

/**
 * Reads the health of the queue's own tables ({@link TableHealth}) from the database's
 * catalogs and statistics: bounded reads that never scan a table of the queue, so that a
 * reading costs the same on a table of ten rows as on one of ten million. Each database's
 * reader sits in its dialect's package ({@link Dialect#tableHealthReader}); where a database
 * has nothing cheap to tell, the reading says so ({@link #notReported}).
 */
public interface TableHealthReader {

	/**
	 * The queue's tables whose health is read: every table the queue writes, in the schema
	 * the queue runs in.
	 */
	List<String> TABLES = List.of("queue_job", "queue_flow", "queue_rate_window", "queue_fair_key",
			"queue_dependency", "queue_batch", "queue_schedule", "queue_limit", "queue_attempt");

	/** The most holders of each kind one reading reports, oldest first. */
	int MAX_HOLDERS = 5;

	/** Reads the tables' health now; fails (a {@code DataAccessException}) when the database cannot be read. */
	TableHealth read();

	/** The statements a reading runs, in order, for the golden files; none where it runs none. */
	default List<String> statements() {
		return List.of();
	}

	/** The number in the column, or {@code null} where it is SQL {@code NULL}. */
	static @Nullable Long longOrNull(ResultSet rs, String column) throws SQLException {
		long value = rs.getLong(column);
		return rs.wasNull() ? null : value;
	}

	/** The table names for an {@code IN (…)} list: constants of the queue, never input. */
	static String tableList() {
		return String.join(", ", TABLES.stream().map((table) -> "'" + table + "'").toList());
	}

	/** A reader for a database that reports nothing cheaply (H2, SQLite). */
	static TableHealthReader notReported(String database) {
		List<String> what = List.of("table sizes", "dead rows", "transactions holding the horizon");
		return () -> new TableHealth(database, Instant.now(), List.of(), List.of(), null, what, null);
	}

}
