package io.sqlqueue.testkit;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.PayloadCodec;

/**
 * One attempt the {@link SqlQueueTester} ran: how it ended, and the job as it was stored
 * right after.
 */
public final class RanJob {

	private final JobRecord job;

	private final int attempt;

	private final @Nullable JobOutcome outcome;

	private final PayloadCodec codec;

	RanJob(JobRecord job, int attempt, @Nullable JobOutcome outcome, PayloadCodec codec) {
		this.job = job;
		this.attempt = attempt;
		this.outcome = outcome;
		this.codec = codec;
	}

	public long id() {
		return this.job.id();
	}

	public String handler() {
		return this.job.handler();
	}

	public String queue() {
		return this.job.queue();
	}

	/** This attempt's number, from 1. */
	public int attempt() {
		return this.attempt;
	}

	/**
	 * How the attempt ended: {@code SUCCEEDED}; {@code RETRIED} (queued again, due after the
	 * retry policy's backoff); {@code FAILED} (for good: attempts used up, or not retryable);
	 * {@code CANCELLED} (its cancel was asked for); {@code EXPIRED} (its deadline had passed,
	 * so it did not start); {@code PARKED} (it parked its job: a durable sleep, a wait for a
	 * signal, a snooze); {@code null} when its lease was lost.
	 */
	public @Nullable JobOutcome outcome() {
		return this.outcome;
	}

	/** Whether the handler parked its job (a durable sleep, a wait for a signal, a snooze): it is {@code QUEUED} again. */
	public boolean parked() {
		return this.outcome == JobOutcome.PARKED;
	}

	public boolean succeeded() {
		return this.outcome == JobOutcome.SUCCEEDED;
	}

	/** The job's state right after the attempt. */
	public JobStatus status() {
		return this.job.status();
	}

	/** The handler's result decoded as {@code type}; {@code null} unless it succeeded and returned something. */
	public <T> @Nullable T result(Class<T> type) {
		String result = this.job.result();
		return (result != null && succeeded()) ? this.codec.decodeResult(result, type, this.job.id()) : null;
	}

	/** Why the attempt did not succeed (class, message, short stack); {@code null} when it did. */
	public @Nullable String error() {
		return succeeded() ? null : this.job.lastError();
	}

	/** The job's row right after the attempt. */
	public JobRecord job() {
		return this.job;
	}

	@Override
	public String toString() {
		return "RanJob[id=" + id() + ", handler=" + handler() + ", attempt=" + this.attempt + ", outcome="
				+ this.outcome + ((error() != null) ? ", error=" + firstLine(error()) : "") + "]";
	}

	private static String firstLine(String text) {
		int end = text.indexOf('\n');
		return (end < 0) ? text : text.substring(0, end);
	}

}
