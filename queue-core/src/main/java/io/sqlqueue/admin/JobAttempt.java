package io.sqlqueue.admin;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobStatus;

/**
 * One ended attempt of a job, as the database keeps it with the job (table
 * {@code queue_attempt}), whichever instance ran it. Written in the transaction of the fenced
 * write that ended the attempt, so an attempt whose lease was lost has the row of whoever
 * won the fence (the reaper's {@code lease-expired}), never a success of its own.
 *
 * @param attempt the job's count of attempts at the time (an operator's retry starts it
 * again from 1)
 * @param worker the worker id of the instance that ran it ({@code sqlqueue.manager.worker-id})
 * @param startedAt when it was claimed, on the database's clock
 * @param endedAt when its end was written, on the database's clock (a success: when its
 * completion batch was written, at most {@code sqlqueue.manager.completion.linger} later)
 * @param outcome {@code succeeded}, {@code retried}, {@code failed}, {@code cancelled}, or
 * {@code lease-expired} (the worker was lost; the reaper ended it)
 * @param status the job's status right after it
 * @param error the error the attempt ended with; {@code null} for a success
 */
public record JobAttempt(int attempt, @Nullable String worker, @Nullable Instant startedAt, Instant endedAt,
		String outcome, JobStatus status, @Nullable String error) {

	/** {@link #outcome()} of an attempt whose worker was lost and which the reaper ended. */
	public static final String LEASE_EXPIRED = "lease-expired";

}
