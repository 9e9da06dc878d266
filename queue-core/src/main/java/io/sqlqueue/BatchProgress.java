package io.sqlqueue;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A batch as counted now: its jobs that ended, by how, and those still to end. The counts
 * are written in the transactions that record each job's end, so they are never ahead of
 * nor behind the jobs themselves.
 * @param total the jobs of the batch
 * @param succeeded those that succeeded
 * @param failed those that failed for good
 * @param cancelled those cancelled (on request, by a deadline, or because a dependency failed)
 * @param pending those not finished yet
 * @param callbackId the callback job, or {@code null}
 * @param finishedAt when its last job finished, or {@code null} while some are pending
 */
public record BatchProgress(long id, int total, int succeeded, int failed, int cancelled, int pending,
		@Nullable Long callbackId, Instant createdAt, @Nullable Instant finishedAt) {

	/** Whether every job of the batch has finished. */
	public boolean isFinished() {
		return this.pending == 0;
	}

}
