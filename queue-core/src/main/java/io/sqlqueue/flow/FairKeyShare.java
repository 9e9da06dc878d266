package io.sqlqueue.flow;

import org.jspecify.annotations.Nullable;

/**
 * One key of a fair queue as operators see it: its due jobs now, its starts in about the last
 * minute (a sliding window on the database's clock), and that as a share of all the queue's
 * starts in the same window (0 to 1).
 * @param key the concurrency key, {@code null} for the jobs without one
 */
public record FairKeyShare(@Nullable String key, long due, long recentStarts, double share) {
}
