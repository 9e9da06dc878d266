package io.sqlqueue;

import java.time.Instant;

/**
 * A signal sent to a job ({@link JobQueue#signal}), kept with the job until it is deleted.
 *
 * @param payload its payload as JSON
 * @param sentAt when the signal's transaction wrote it, by the database's clock
 */
public record JobSignal(String name, String payload, Instant sentAt) {
}
