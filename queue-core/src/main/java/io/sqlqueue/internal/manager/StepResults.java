package io.sqlqueue.internal.manager;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobContext;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.internal.store.JobStore;

/**
 * The results of one job's steps as JSON: encoded and checked before they are recorded, their
 * bytes counted against the job's limit ({@link JobContext#MAX_STEP_RESULT_BYTES}), and decoded
 * when replayed. Thread-safe: steps of several threads encode at once.
 */
final class StepResults {

	private final long jobId;

	private final JobStore store;

	private final PayloadCodec codec;

	/** The bytes of step results recorded, or reserved by a step about to record. */
	private long resultBytes;

	StepResults(long jobId, JobStore store, PayloadCodec codec) {
		this.jobId = jobId;
		this.store = store;
		this.codec = codec;
	}

	/** Counts the results of earlier runs, read on the run's first durable call. */
	synchronized void countRecorded(long bytes) {
		this.resultBytes += bytes;
	}

	/** The result of step {@code name} as JSON, its bytes reserved ({@link #unreserve} if it is not recorded). */
	String encode(String name, @Nullable Object result) {
		String json;
		try {
			json = Objects.requireNonNullElse(this.codec.encodeResult(result), "null");
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("The result of step '" + name + "' cannot be encoded as JSON, so it "
					+ "cannot be recorded: " + ex.getMessage(), ex);
		}
		String problem = this.store.whyNotStorable(json);
		if (problem != null) {
			throw new IllegalStateException("The result of step '" + name + "' cannot be recorded: " + problem);
		}
		long bytes = json.getBytes(StandardCharsets.UTF_8).length;
		reserve(name, bytes);
		return json;
	}

	/** Counts a result's bytes against the job's limit before it is recorded; {@link #unreserve} if it is not. */
	private synchronized void reserve(String name, long bytes) {
		if (this.resultBytes + bytes > JobContext.MAX_STEP_RESULT_BYTES) {
			throw new IllegalStateException("The result of step '" + name + "' (" + bytes + " bytes of JSON) would "
					+ "take job " + this.jobId + "'s step results over " + JobContext.MAX_STEP_RESULT_BYTES
					+ " bytes (JobContext.MAX_STEP_RESULT_BYTES); record a reference to large data instead");
		}
		this.resultBytes += bytes;
	}

	/** Gives back what {@link #reserve} counted for a result that was not recorded. */
	synchronized void unreserve(String json) {
		this.resultBytes -= json.getBytes(StandardCharsets.UTF_8).length;
	}

	<T> @Nullable T decode(String json, Class<T> type, String what) {
		if (type == Void.class) {
			return null;
		}
		try {
			return this.codec.decodeResult(json, type, this.jobId);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("The recorded " + what + " of job " + this.jobId + " cannot be decoded as "
					+ type.getName() + " (did its type change since?): " + ex.getMessage(), ex);
		}
	}

}
