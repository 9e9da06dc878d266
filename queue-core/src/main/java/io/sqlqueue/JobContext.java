package io.sqlqueue;

import java.time.Instant;

import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * What a handler may know about the attempt it runs in. Declare a parameter of this type
 * on a {@link JobHandler} method to receive it.
 */
public interface JobContext {

	long jobId();

	String handler();

	String queue();

	/** This attempt's number, from 1. */
	int attempt();

	int maxAttempts();

	/**
	 * The tick a recurring job was fired for (its schedule's due time, on the database's
	 * clock), so a handler can work on "the day it was scheduled for"; {@code null} for a
	 * job that no schedule fired.
	 */
	default @Nullable Instant scheduledFor() {
		return null;
	}

	/**
	 * The job's concurrency key (docs/flow-control.md), or {@code null} for a job without one:
	 * the customer or resource a handler works for, without repeating it in the payload.
	 */
	default @Nullable String concurrencyKey() {
		return null;
	}

	/**
	 * Whether this job's cancel was asked for ({@link JobQueue#cancel(long)}) and this instance
	 * has heard of it: the job is already {@code CANCELLED} and the handler's thread was
	 * interrupted; a handler that works in steps should check this between them and return.
	 */
	default boolean isCancellationRequested() {
		return false;
	}

	/**
	 * The batch this job belongs to, or, for a batch's callback, the batch it was called back
	 * for, with its counts as they are now (read when called): a callback sees every job
	 * ended, with how many succeeded, failed and were cancelled. Empty for a job of no batch.
	 */
	default Optional<BatchProgress> batch() {
		return Optional.empty();
	}

	/**
	 * Extends this attempt's lease now, for handlers that know they will run long. Leases
	 * are extended by the Manager's heartbeat anyway; throws {@link LeaseLostException}
	 * when the job was already handed to another worker.
	 */
	void extendLease();

}
