package io.sqlqueue;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Jobs enqueued as one batch, with an optional callback job that runs once, after every job
 * of the batch has finished (succeeded, failed for good or been cancelled). The callback
 * reads the counts from {@link io.sqlqueue.JobContext#batch()}.
 *
 * <pre>{@code
 * BatchIds batch = jobs.enqueue(Batch.of(images.stream().map((image) -> Job.of("image.resize", image)).toList())
 *         .callback(Job.of("images.zip", album)));
 * }</pre>
 */
public final class Batch {

	private final List<Job> jobs;

	private final @Nullable Job callback;

	private Batch(List<Job> jobs, @Nullable Job callback) {
		this.jobs = jobs;
		this.callback = callback;
	}

	/** A batch of these jobs (at least one); a job may also wait for others ({@link Job#after(long...)}). */
	public static Batch of(List<Job> jobs) {
		if (jobs.isEmpty()) {
			throw new InvalidJobException("A batch needs at least one job");
		}
		return new Batch(List.copyOf(jobs), null);
	}

	/** This batch with a callback job, which waits until every job of the batch has finished. */
	public Batch callback(Job callback) {
		return new Batch(this.jobs, callback);
	}

	public List<Job> jobs() {
		return this.jobs;
	}

	public @Nullable Job callback() {
		return this.callback;
	}

}
