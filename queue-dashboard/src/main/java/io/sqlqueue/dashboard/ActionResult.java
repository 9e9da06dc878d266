package io.sqlqueue.dashboard;

import java.util.List;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;

/**
 * What an action did.
 *
 * @param done whether it changed anything
 * @param message what happened, or why nothing did, in words
 * @param status the job's state as the action left it, where it acted on one job
 * @param ids the jobs it queued or enqueued
 */
public record ActionResult(boolean done, String message, @Nullable JobStatus status, List<Long> ids) {

	static ActionResult notDone(String message, @Nullable JobStatus status) {
		return new ActionResult(false, message, status, List.of());
	}

}
