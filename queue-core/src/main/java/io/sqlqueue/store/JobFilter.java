package io.sqlqueue.store;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;

/**
 * Which jobs a {@link JobBrowser} page shows; a {@code null} part matches every job.
 *
 * @param queue only jobs of this queue
 * @param handler only jobs of this handler
 * @param status only jobs in this state
 * @param search only the job with this id (when the text is a number), or jobs with this
 * unique key or group key, matched exactly
 */
public record JobFilter(@Nullable String queue, @Nullable String handler, @Nullable JobStatus status,
		@Nullable String search) {

	/** Every job. */
	public static final JobFilter ALL = new JobFilter(null, null, null, null);

}
