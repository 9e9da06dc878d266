package io.sqlqueue;

import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonRawValue;
import org.jspecify.annotations.Nullable;

/**
 * A job as stored: one row of {@code queue_job}. Payload and result are JSON text.
 * {@code deadline} is when the job, not started by then, is cancelled instead;
 * {@code cancelRequestedAt} when a cancel of the running job was asked for; {@code crashes}
 * how many of its attempts ended because their lease expired (the worker died or froze);
 * {@code headers} the propagation context its enqueue stored (a JSON object of strings, such
 * as a W3C {@code traceparent}), {@code null} when there was none; {@code concurrencyKey} the
 * key its queue's limits look it up by ({@link Job#concurrencyKey}), {@code null} for none;
 * {@code tags} and {@code meta} what its enqueue labelled it with ({@link Job#tags},
 * {@link Job#meta}), stored beside the job's row: {@link JobQueue#find} (and so the
 * operator's reads of one job) reads them in; a record that a claim hands to a worker carries
 * them empty, as the claim reads only the job's own row.
 * <p>
 * Returned from a controller, a record serialises as a user would expect: payload, result and
 * headers as the JSON they are (not as escaped strings), and without the lease token, which
 * is the running attempt's proof of ownership and nobody else's business.
 */
public record JobRecord(long id, String queue, String handler, @JsonRawValue String payload, JobStatus status,
		int priority, Instant runAt, int attempts, int maxAttempts, @Nullable String leaseOwner,
		@JsonIgnore @Nullable Long leaseToken, @Nullable Instant leaseExpiresAt, long version,
		@Nullable String uniqueKey, @Nullable String groupKey, @Nullable String lastError,
		@JsonRawValue @Nullable String result, Instant createdAt, Instant updatedAt, @Nullable Instant startedAt,
		@Nullable Instant finishedAt, @Nullable Instant scheduledFor, @Nullable Instant deadline,
		@Nullable Instant cancelRequestedAt, int crashes, @JsonRawValue @Nullable String headers,
		@Nullable String concurrencyKey, List<String> tags, Map<String, String> meta) {

	public JobRecord {
		tags = List.copyOf(tags);
		meta = Collections.unmodifiableMap(new TreeMap<>(meta));
	}

	/** A job without tags or meta. */
	public JobRecord(long id, String queue, String handler, String payload, JobStatus status, int priority,
			Instant runAt, int attempts, int maxAttempts, @Nullable String leaseOwner, @Nullable Long leaseToken,
			@Nullable Instant leaseExpiresAt, long version, @Nullable String uniqueKey, @Nullable String groupKey,
			@Nullable String lastError, @Nullable String result, Instant createdAt, Instant updatedAt,
			@Nullable Instant startedAt, @Nullable Instant finishedAt, @Nullable Instant scheduledFor,
			@Nullable Instant deadline, @Nullable Instant cancelRequestedAt, int crashes, @Nullable String headers,
			@Nullable String concurrencyKey) {
		this(id, queue, handler, payload, status, priority, runAt, attempts, maxAttempts, leaseOwner, leaseToken,
				leaseExpiresAt, version, uniqueKey, groupKey, lastError, result, createdAt, updatedAt, startedAt,
				finishedAt, scheduledFor, deadline, cancelRequestedAt, crashes, headers, concurrencyKey, List.of(),
				Map.of());
	}

	/** A job without a concurrency key. */
	public JobRecord(long id, String queue, String handler, String payload, JobStatus status, int priority,
			Instant runAt, int attempts, int maxAttempts, @Nullable String leaseOwner, @Nullable Long leaseToken,
			@Nullable Instant leaseExpiresAt, long version, @Nullable String uniqueKey, @Nullable String groupKey,
			@Nullable String lastError, @Nullable String result, Instant createdAt, Instant updatedAt,
			@Nullable Instant startedAt, @Nullable Instant finishedAt, @Nullable Instant scheduledFor,
			@Nullable Instant deadline, @Nullable Instant cancelRequestedAt, int crashes, @Nullable String headers) {
		this(id, queue, handler, payload, status, priority, runAt, attempts, maxAttempts, leaseOwner, leaseToken,
				leaseExpiresAt, version, uniqueKey, groupKey, lastError, result, createdAt, updatedAt, startedAt,
				finishedAt, scheduledFor, deadline, cancelRequestedAt, crashes, headers, null);
	}

	/** A job without propagation headers. */
	public JobRecord(long id, String queue, String handler, String payload, JobStatus status, int priority,
			Instant runAt, int attempts, int maxAttempts, @Nullable String leaseOwner, @Nullable Long leaseToken,
			@Nullable Instant leaseExpiresAt, long version, @Nullable String uniqueKey, @Nullable String groupKey,
			@Nullable String lastError, @Nullable String result, Instant createdAt, Instant updatedAt,
			@Nullable Instant startedAt, @Nullable Instant finishedAt, @Nullable Instant scheduledFor,
			@Nullable Instant deadline, @Nullable Instant cancelRequestedAt, int crashes) {
		this(id, queue, handler, payload, status, priority, runAt, attempts, maxAttempts, leaseOwner, leaseToken,
				leaseExpiresAt, version, uniqueKey, groupKey, lastError, result, createdAt, updatedAt, startedAt,
				finishedAt, scheduledFor, deadline, cancelRequestedAt, crashes, null);
	}

	/** This job with another start time. */
	public JobRecord withStartedAt(@Nullable Instant startedAt) {
		return new JobRecord(this.id, this.queue, this.handler, this.payload, this.status, this.priority, this.runAt,
				this.attempts, this.maxAttempts, this.leaseOwner, this.leaseToken, this.leaseExpiresAt, this.version,
				this.uniqueKey, this.groupKey, this.lastError, this.result, this.createdAt, this.updatedAt, startedAt,
				this.finishedAt, this.scheduledFor, this.deadline, this.cancelRequestedAt, this.crashes, this.headers,
				this.concurrencyKey, this.tags, this.meta);
	}

	/** This job with these tags and meta. */
	public JobRecord withLabels(List<String> tags, Map<String, String> meta) {
		return new JobRecord(this.id, this.queue, this.handler, this.payload, this.status, this.priority, this.runAt,
				this.attempts, this.maxAttempts, this.leaseOwner, this.leaseToken, this.leaseExpiresAt, this.version,
				this.uniqueKey, this.groupKey, this.lastError, this.result, this.createdAt, this.updatedAt,
				this.startedAt, this.finishedAt, this.scheduledFor, this.deadline, this.cancelRequestedAt, this.crashes,
				this.headers, this.concurrencyKey, tags, meta);
	}

	@Override
	public String toString() {
		return "JobRecord[id=" + this.id + ", queue=" + this.queue + ", handler=" + this.handler + ", status="
				+ this.status + ", attempts=" + this.attempts + "/" + this.maxAttempts + "]";
	}

}
