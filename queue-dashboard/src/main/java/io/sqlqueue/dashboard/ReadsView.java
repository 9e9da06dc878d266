package io.sqlqueue.dashboard;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.admin.Staleness;

/**
 * Where the dashboard's counts and job lists were read, as the page shows it: "read from the
 * replica, 2 s behind" ({@link Staleness}).
 *
 * @param replica whether they were read from the read replica ({@code @SqlQueueReadDataSource})
 * @param state what the replica said of itself ({@code PRIMARY} without one)
 * @param behindMillis how far behind the queue's own database at most, or {@code null} when it
 * cannot tell
 * @param checkedAt when it was asked
 * @param detail what it said, in words, or {@code null}
 */
public record ReadsView(boolean replica, Staleness.State state, @Nullable Long behindMillis, Instant checkedAt,
		@Nullable String detail) {

	public static ReadsView of(Staleness staleness) {
		return new ReadsView(staleness.replica(), staleness.state(),
				(staleness.behind() != null) ? staleness.behind().toMillis() : null, staleness.checkedAt(),
				staleness.detail());
	}

}
