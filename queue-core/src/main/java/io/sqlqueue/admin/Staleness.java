package io.sqlqueue.admin;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Where the reads that tolerate staleness come from (the searches and counts of
 * {@link QueueAdmin}, the dashboard's overview counts, the endpoint's counts), and how far
 * behind the queue's own database they may be. Without a read-only replica
 * ({@code @SqlQueueReadDataSource}) they read the queue's own database: {@link State#PRIMARY},
 * nothing behind. With one, the replica says how far behind it is, as far as it can tell
 * (docs/operations.md, "Read replica").
 *
 * @param replica whether the reads come from the read-only replica rather than the queue's own database
 * @param state what the replica says of itself, or {@link State#PRIMARY}
 * @param behind how far the replica's data may be behind the queue's own database at most:
 * zero when it has replayed all it received, {@code null} when it cannot tell
 * @param checkedAt when this was read, by this instance's clock
 * @param detail what the database said, in words (why it is unknown, what is paused), or
 * {@code null}
 */
public record Staleness(boolean replica, State state, @Nullable Duration behind, Instant checkedAt,
		@Nullable String detail) {

	/** Reads from the queue's own database: nothing behind. */
	public static Staleness primary(Instant checkedAt) {
		return new Staleness(false, State.PRIMARY, Duration.ZERO, checkedAt, null);
	}

	/** Reads from a replica that cannot tell how far behind it is, for this reason. */
	public static Staleness unknown(Instant checkedAt, String why) {
		return new Staleness(true, State.UNKNOWN, null, checkedAt, why);
	}

	/** A replica that could not be asked, for this reason. */
	public static Staleness unreachable(Instant checkedAt, String why) {
		return new Staleness(true, State.UNREACHABLE, null, checkedAt, why);
	}

	/** What a replica says of itself. */
	public enum State {

		/** Not a replica: the reads come from the queue's own database. */
		PRIMARY,

		/** A standby that has replayed everything it received and is receiving more: nothing behind. */
		CAUGHT_UP,

		/** A standby with received changes not yet replayed: behind by the age of the last one it replayed, at most. */
		BEHIND,

		/**
		 * A standby whose replay is paused (PostgreSQL's {@code pg_wal_replay_pause()}): it
		 * falls behind with every write until it is resumed.
		 */
		REPLAY_PAUSED,

		/**
		 * A standby that receives nothing from its primary (PostgreSQL: no WAL receiver;
		 * MariaDB, MySQL: a replication thread stopped): how far behind is unknown.
		 */
		NOT_RECEIVING,

		/**
		 * The read DataSource is not a replica (PostgreSQL: not in recovery; MariaDB, MySQL:
		 * no replication configured): it says nothing of how far behind it is.
		 */
		NOT_A_REPLICA,

		/** The database cannot tell (H2, SQLite, a user without the right to ask): see the detail. */
		UNKNOWN,

		/** The replica could not be asked (it is down, or refused the connection): see the detail. */
		UNREACHABLE

	}

}
