package io.sqlqueue.internal.store;

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
 * @param batch only the jobs of this batch (its members; not its callback)
 */
public record JobFilter(@Nullable String queue, @Nullable String handler, @Nullable JobStatus status,
		@Nullable String search, @Nullable Long batch) {

	/** Every job. */
	public static final JobFilter ALL = new JobFilter(null, null, null, null);

	/** A filter of jobs in or out of any batch. */
	public JobFilter(@Nullable String queue, @Nullable String handler, @Nullable JobStatus status,
			@Nullable String search) {
		this(queue, handler, status, search, null);
	}

	/** The jobs of this batch that pass this filter. */
	public JobFilter inBatch(long batch) {
		return new JobFilter(this.queue, this.handler, this.status, this.search, batch);
	}

}
