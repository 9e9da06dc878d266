package io.sqlqueue.boot.actuate.endpoint;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.admin.Staleness;

/**
 * Where reads that tolerate staleness came from ({@link Staleness}): the queue's own
 * database, or the read replica and how far behind it said it was.
 * @param replica whether they came from the read replica ({@code @SqlQueueReadDataSource})
 * @param state what the replica said of itself ({@code PRIMARY} without one)
 * @param behind how far behind the queue's own database at most (ISO-8601), {@code null}
 * when it cannot tell
 * @param checkedAt when it was asked
 * @param detail what it said, in words, or {@code null}
 */
public record ReadsDescriptor(boolean replica, Staleness.State state, @Nullable String behind,
		Instant checkedAt, @Nullable String detail) {

	static ReadsDescriptor of(Staleness staleness) {
		return new ReadsDescriptor(staleness.replica(), staleness.state(),
				(staleness.behind() != null) ? staleness.behind().toString() : null, staleness.checkedAt(),
				staleness.detail());
	}

}
