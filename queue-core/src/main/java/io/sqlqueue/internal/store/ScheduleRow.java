package io.sqlqueue.internal.store;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A row of {@code queue_schedule} as stored, with the state of its last job
 * ({@code lastJobStatus}, null when there is none) and the database's clock at the read.
 * {@code queue}, {@code priority}, {@code maxAttempts}, {@code expireAfterMillis} and
 * {@code concurrencyKey} are the settings its jobs are enqueued with; a row stored before
 * they were (or registered where the handler was unknown) may lack the queue or the
 * attempts. {@code declaredUntil} is how long the instances that declare it from their
 * code (properties or annotations) keep it declared; null when none has (yet, or since
 * migration {@code V17}).
 */
public record ScheduleRow(String name, String handler, @Nullable String queue, int priority,
		@Nullable Integer maxAttempts, @Nullable Long expireAfterMillis, @Nullable String concurrencyKey,
		String payload, @Nullable String cron, @Nullable String zone, @Nullable Long everyMillis, String misfire,
		String overlap, String source, boolean paused, boolean orphaned, Instant nextRunAt,
		@Nullable Instant lastTickAt, @Nullable Instant lastFiredAt, @Nullable Long lastJobId,
		@Nullable String lastJobStatus, long version, Instant databaseNow,
		@Nullable Instant declaredUntil) {
}
