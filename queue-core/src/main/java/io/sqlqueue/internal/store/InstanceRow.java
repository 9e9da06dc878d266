package io.sqlqueue.internal.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A row of {@code queue_instance}: one running instance as it last told, its times on the
 * database's clock.
 *
 * @param beatMillis how often it writes its row
 * @param dbNow the database's clock when the row was read
 */
public record InstanceRow(String id, String host, long pid, String version, List<String> queues, int concurrency,
		int busyWorkers, long beatMillis, Instant startedAt, Instant lastSeen, Instant dbNow) {

	/** An instance is gone when it missed this many beats, on the database's clock. */
	public static final int MISSED_BEATS = 3;

	public InstanceRow {
		queues = List.copyOf(queues);
	}

	/** How long ago it last wrote its row, on the database's clock (never negative). */
	public Duration sinceSeen() {
		Duration sinceSeen = Duration.between(this.lastSeen, this.dbNow);
		return sinceSeen.isNegative() ? Duration.ZERO : sinceSeen;
	}

	/** Whether it missed {@value #MISSED_BEATS} beats: crashed, frozen, or cut off from the database. */
	public boolean gone() {
		return sinceSeen().toMillis() > MISSED_BEATS * this.beatMillis;
	}

}
