package io.sqlqueue.internal.store.postgresql;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.springframework.jdbc.core.JdbcOperations;

import io.sqlqueue.admin.Staleness;
import io.sqlqueue.internal.store.ReplicaLagReader;

/**
 * How far a PostgreSQL standby is behind, from its own recovery functions (any role may call
 * them; nothing here needs a privilege):
 * <ul>
 * <li>not in recovery ({@code pg_is_in_recovery()}): not a standby;</li>
 * <li>replay paused ({@code pg_is_wal_replay_paused()}): paused, and behind as below;</li>
 * <li>no WAL receiver ({@code pg_stat_wal_receiver} has no row): it receives nothing, and how
 * far behind is unknown (its primary may have written nothing since, or much);</li>
 * <li>everything received is replayed ({@code pg_last_wal_receive_lsn()} not past
 * {@code pg_last_wal_replay_lsn()}): caught up, nothing behind. Not the age of the last
 * replayed transaction, which grows on a standby of an idle primary that is fully
 * caught up;</li>
 * <li>else behind by {@code clock_timestamp() - pg_last_xact_replay_timestamp()} at most: its
 * data is the primary's as of its last replayed commit or later. The commit time is the
 * primary's clock and the difference the standby's: a skew between their clocks adds to it.</li>
 * </ul>
 */
final class PostgresReplicaLag implements ReplicaLagReader {

	static final String LAG = """
			SELECT pg_is_in_recovery() AS in_recovery,
			    CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() END AS replay_paused,
			    EXISTS (SELECT 1 FROM pg_stat_wal_receiver) AS receiving,
			    COALESCE(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()) <= 0, FALSE)
			        AS replayed_all,
			    CAST(EXTRACT(EPOCH FROM (clock_timestamp() - pg_last_xact_replay_timestamp())) * 1000 AS bigint)
			        AS since_last_replay""";

	private final JdbcOperations jdbc;

	PostgresReplicaLag(JdbcOperations jdbc) {
		this.jdbc = jdbc;
	}

	@Override
	public Staleness read() {
		Staleness staleness = this.jdbc.queryForObject(LAG, (rs, row) -> {
			Instant now = Instant.now();
			if (!rs.getBoolean("in_recovery")) {
				return new Staleness(true, Staleness.State.NOT_A_REPLICA, null, now,
						"pg_is_in_recovery() is false: the read DataSource is a primary, not a standby");
			}
			long sinceLastReplay = rs.getLong("since_last_replay");
			Duration lastReplayed = rs.wasNull() ? null : Duration.ofMillis(Math.max(0, sinceLastReplay));
			String replayed = (lastReplayed != null)
					? "the last transaction it replayed committed " + lastReplayed + " ago"
					: "it has replayed no transaction since it started";
			boolean replayedAll = rs.getBoolean("replayed_all");
			Duration behind = replayedAll ? Duration.ZERO : lastReplayed;
			if (rs.getBoolean("replay_paused")) {
				return new Staleness(true, Staleness.State.REPLAY_PAUSED, behind, now,
						"replay is paused (pg_wal_replay_resume() resumes it); " + replayed);
			}
			if (!rs.getBoolean("receiving")) {
				return new Staleness(true, Staleness.State.NOT_RECEIVING, null, now,
						"no WAL receiver: the standby receives nothing from its primary; " + replayed);
			}
			return replayedAll ? new Staleness(true, Staleness.State.CAUGHT_UP, Duration.ZERO, now, null)
					: new Staleness(true, Staleness.State.BEHIND, behind, now, replayed);
		});
		if (staleness == null) {
			throw new IllegalStateException("No row from the replica's lag query");
		}
		return staleness;
	}

	@Override
	public List<String> statements() {
		return List.of(LAG);
	}

}
