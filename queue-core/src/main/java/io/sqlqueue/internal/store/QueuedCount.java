package io.sqlqueue.internal.store;

/**
 * One queue's {@code QUEUED} jobs by why they wait, on the database's clock.
 *
 * @param due due now: they wait only for a worker (or a limit)
 * @param delayed not due yet and never run: enqueued with a delay or a time to run at
 * @param backingOff not due yet after a failed attempt: waiting out their retry backoff
 * @param parked not due yet, parked on a durable sleep or a wait for a signal (neither delayed
 * nor backing off)
 */
public record QueuedCount(String queue, long due, long delayed, long backingOff, long parked) {
}
