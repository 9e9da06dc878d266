package io.sqlqueue.admin;

import java.util.List;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;

/**
 * What an operator action did.
 *
 * @param done whether it changed anything
 * @param refusal why it did nothing, or {@code null} when it was done
 * @param message what happened, or why nothing did, in words
 * @param status the job's state as the action left it, where it acted on one job (or a
 * trigger enqueued one); {@code null} otherwise or when there is no such job
 * @param ids the jobs it acted on, queued again or enqueued
 */
public record AdminResult(boolean done, @Nullable Refusal refusal, String message, @Nullable JobStatus status,
		List<Long> ids) {

	public AdminResult {
		ids = List.copyOf(ids);
	}

	/** An action that was done. */
	public static AdminResult done(String message, @Nullable JobStatus status, List<Long> ids) {
		return new AdminResult(true, null, message, status, ids);
	}

	/** An action refused for this reason, its message filled in with these values. */
	public static AdminResult refused(Refusal refusal, @Nullable JobStatus status, Object... values) {
		return new AdminResult(false, refusal, refusal.message(values), status, List.of());
	}

}
