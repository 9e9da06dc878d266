package io.sqlqueue.internal.store;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/** A row of {@code queue_paused}: a paused queue, since when (database clock) and by whom if known. */
public record PausedRow(String queue, Instant pausedAt, @Nullable String pausedBy) {
}
