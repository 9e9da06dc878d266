package io.sqlqueue.admin;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One operator action that changed something, as the audit log keeps it (table
 * {@code queue_audit}): written by {@link QueueAdmin}, through which the endpoint, the
 * dashboard and application code act, and kept for {@code sqlqueue.retention.audit}.
 *
 * @param id the entry's id, increasing with time
 * @param at when, on the database's clock
 * @param actor who: the signed-in user of the endpoint or dashboard, else the name the caller
 * gave ({@link QueueAdmin#by(String)}, {@link QueueAdmin#pauseQueue(String, String)}), else
 * {@code null}
 * @param action what: {@code retry}, {@code retry-from}, {@code cancel}, {@code retry-failed},
 * {@code trigger-schedule}, {@code pause-schedule}, {@code resume-schedule}, {@code set-limit},
 * {@code remove-limit}, {@code set-fairness}, {@code remove-fairness}, {@code pause-queue},
 * {@code resume-queue}
 * @param queue the queue it acted on, or {@code null}
 * @param jobId the job it acted on (or, for a trigger, the job it enqueued), or {@code null}
 * @param schedule the schedule it acted on, or {@code null}
 * @param jobs how many jobs it changed
 * @param detail what else it was told (a handler filter, a limit, a key pattern), or {@code null}
 */
public record AuditEntry(long id, Instant at, @Nullable String actor, String action, @Nullable String queue,
		@Nullable Long jobId, @Nullable String schedule, int jobs, @Nullable String detail) {
}
