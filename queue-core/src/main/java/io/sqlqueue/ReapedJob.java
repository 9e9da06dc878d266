package io.sqlqueue;

import java.util.Locale;

/**
 * A job whose lease expired and that the reaper re-queued ({@code QUEUED}), failed
 * ({@code FAILED}: attempts used up, or {@code crashes} reached the crash budget) or
 * cancelled ({@code CANCELLED}: its cancel had been asked for). {@code crashes} counts this
 * one; {@code token} is the lease that expired, {@code error} what the job's last error says.
 */
public record ReapedJob(long id, String queue, String handler, String previousOwner, JobStatus status, int crashes,
		long token, String error) {

	/** Whether the job failed for good. */
	public boolean failed() {
		return this.status == JobStatus.FAILED;
	}

	/** The outcome as a metric tag: {@code requeued}, {@code failed} or {@code cancelled}. */
	public String outcome() {
		return (this.status == JobStatus.QUEUED) ? "requeued" : this.status.name().toLowerCase(Locale.ROOT);
	}

}
