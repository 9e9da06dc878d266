package io.sqlqueue.internal.store;

import java.time.Instant;
import java.util.List;

import org.springframework.jdbc.core.JdbcOperations;

import io.sqlqueue.admin.Staleness;

/**
 * Asks a read-only replica how far behind its primary it is ({@link Staleness}): one cheap
 * statement that reads no table of the queue. Each database's reader sits in its dialect's
 * package ({@link Dialect#replicaLagReader}); where a database cannot tell, the answer says so
 * ({@link #unknown}).
 */
public interface ReplicaLagReader {

	/**
	 * Asks now; fails (a {@code DataAccessException}) when the replica cannot be reached. A
	 * replica that answers but may not tell (a missing privilege) is
	 * {@link Staleness.State#UNKNOWN}, with the reason.
	 */
	Staleness read();

	/** The statements a reading runs, in order, for the golden files; none where it runs none. */
	default List<String> statements() {
		return List.of();
	}

	/**
	 * A reader for a database that has no way to tell (H2, SQLite): it only checks that the
	 * replica answers, so that one that cannot be reached is said to be so.
	 */
	static ReplicaLagReader unknown(String database, JdbcOperations jdbc) {
		String answers = "SELECT 1";
		return new ReplicaLagReader() {
			@Override
			public Staleness read() {
				jdbc.queryForObject(answers, Integer.class);
				return Staleness.unknown(Instant.now(),
						database + " does not say whether it is a replica, nor how far behind");
			}

			@Override
			public List<String> statements() {
				return List.of(answers);
			}
		};
	}

}
