package io.sqlqueue;

import org.jspecify.annotations.Nullable;

/**
 * How an awaited job ended ({@link JobQueue#await}, {@link JobQueue#whenFinished}): its final
 * state, its result decoded into a type the caller names, and, for a job that failed or
 * was cancelled, why.
 */
public final class JobResult {

	private final JobRecord job;

	private final PayloadCodec codec;

	public JobResult(JobRecord job, PayloadCodec codec) {
		if (!job.status().isFinished()) {
			throw new IllegalArgumentException("Job " + job.id() + " is " + job.status() + ", not finished");
		}
		this.job = job;
		this.codec = codec;
	}

	public long id() {
		return this.job.id();
	}

	/** {@code SUCCEEDED}, {@code FAILED} or {@code CANCELLED}. */
	public JobStatus status() {
		return this.job.status();
	}

	public boolean succeeded() {
		return this.job.status() == JobStatus.SUCCEEDED;
	}

	/**
	 * The handler's result decoded as {@code type}; {@code null} when the job did not succeed,
	 * returned nothing, or its result was not stored (see {@link #error()}).
	 * @throws IllegalArgumentException when the result does not decode as {@code type}
	 */
	public <T> @Nullable T result(Class<T> type) {
		String result = this.job.result();
		if (result == null || !succeeded()) {
			return null;
		}
		return this.codec.decodeResult(result, type, this.job.id());
	}

	/**
	 * Why the job did not succeed: the last error of a failed job (class, message, short
	 * stack), or the reason of a cancelled one ({@code Cancelled while running, on request},
	 * {@code Deadline … passed before the job started}); {@code null} for a job cancelled
	 * before it ran, and for a success (whose {@code last_error} may note a result that was
	 * not stored: see {@link #job()}).
	 */
	public @Nullable String error() {
		return succeeded() ? null : this.job.lastError();
	}

	/** The job's row as it was read when it finished. */
	public JobRecord job() {
		return this.job;
	}

	@Override
	public String toString() {
		return "JobResult[id=" + id() + ", status=" + status() + "]";
	}

}
