package io.sqlqueue;

import java.time.Instant;

/** A queued job whose deadline passed before it started, now {@code CANCELLED}. */
public record ExpiredJob(long id, String queue, String handler, Instant deadline) {
}
