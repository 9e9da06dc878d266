package io.sqlqueue.internal.store;

import java.sql.Statement;
import java.util.List;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.ParameterizedPreparedStatementSetter;

/** Fenced writes sent as one batch, and which of them changed their row. */
final class Batches {

	private Batches() {
	}

	/** One statement per item, sent in one round trip; the update count per item. */
	static <T> int[] batch(JdbcTemplate jdbc, String statement, List<T> items,
			ParameterizedPreparedStatementSetter<T> setter) {
		if (items.isEmpty()) {
			return new int[0];
		}
		return jdbc.batchUpdate(statement, items, items.size(), setter)[0];
	}

	/**
	 * Which fenced writes changed their row. A driver that answers "no info" would leave a
	 * lost lease unnoticed: that is refused loudly rather than guessed.
	 */
	static boolean[] held(int[] counts) {
		boolean[] held = new boolean[counts.length];
		for (int i = 0; i < counts.length; i++) {
			if (counts[i] == Statement.SUCCESS_NO_INFO) {
				throw new IllegalStateException("The JDBC driver did not report update counts of a batch "
						+ "(SUCCESS_NO_INFO); sqlqueue needs them to fence its writes. "
						+ "With MariaDB Connector/J, do not set useBulkStmts=true.");
			}
			held[i] = counts[i] == 1;
		}
		return held;
	}

}
