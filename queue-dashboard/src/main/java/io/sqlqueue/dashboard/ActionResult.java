package io.sqlqueue.dashboard;

import java.util.List;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;
import io.sqlqueue.admin.AdminResult;

/**
 * What an action did, as the dashboard's API answers it.
 *
 * @param done whether it changed anything
 * @param message what happened, or why nothing did, in words
 * @param status the job's state as the action left it, where it acted on one job
 * @param ids the jobs it queued or enqueued
 */
public record ActionResult(boolean done, String message, @Nullable JobStatus status, List<Long> ids) {

	/** What this {@link io.sqlqueue.admin.QueueAdmin} action did. */
	public static ActionResult of(AdminResult result) {
		return new ActionResult(result.done(), result.message(), result.status(), result.ids());
	}

}
