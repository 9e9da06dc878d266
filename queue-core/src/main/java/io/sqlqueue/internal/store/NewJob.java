package io.sqlqueue.internal.store;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A job to insert, validated and encoded. Due at {@code runAt}, or when that is null after
 * {@code delayMillis} on the database's clock. Its deadline is {@code deadline}, or when
 * that is null {@code expireAfterMillis} after the insert on the database's clock, or none
 * when both are null. {@code scheduledFor} is the tick a recurring job was fired for, null
 * for any other job. {@code headers} is the propagation context to store with it (a JSON
 * object of strings), or {@code null} for none. {@code concurrencyKey} is the key its queue's
 * limits look it up by, or {@code null} for none. {@code tags} and {@code meta} are its
 * labels, validated ({@code Job.tags}, {@code Job.meta}), stored beside it ({@link JobLabels}).
 */
public record NewJob(String queue, String handler, String payload, int priority, @Nullable Instant runAt,
		long delayMillis, int maxAttempts, @Nullable String uniqueKey, @Nullable String groupKey,
		@Nullable Instant deadline, @Nullable Long expireAfterMillis, @Nullable Instant scheduledFor,
		@Nullable String headers, @Nullable String concurrencyKey, List<String> tags, Map<String, String> meta) {

	public NewJob {
		tags = List.copyOf(tags);
		meta = Map.copyOf(meta);
	}

	public NewJob(String queue, String handler, String payload, int priority, @Nullable Instant runAt,
			long delayMillis, int maxAttempts, @Nullable String uniqueKey, @Nullable String groupKey,
			@Nullable Instant deadline, @Nullable Long expireAfterMillis, @Nullable Instant scheduledFor,
			@Nullable String headers, @Nullable String concurrencyKey) {
		this(queue, handler, payload, priority, runAt, delayMillis, maxAttempts, uniqueKey, groupKey, deadline,
				expireAfterMillis, scheduledFor, headers, concurrencyKey, List.of(), Map.of());
	}

	public NewJob(String queue, String handler, String payload, int priority, @Nullable Instant runAt,
			long delayMillis, int maxAttempts, @Nullable String uniqueKey, @Nullable String groupKey,
			@Nullable Instant deadline, @Nullable Long expireAfterMillis, @Nullable Instant scheduledFor,
			@Nullable String headers) {
		this(queue, handler, payload, priority, runAt, delayMillis, maxAttempts, uniqueKey, groupKey, deadline,
				expireAfterMillis, scheduledFor, headers, null);
	}

	public NewJob(String queue, String handler, String payload, int priority, @Nullable Instant runAt,
			long delayMillis, int maxAttempts, @Nullable String uniqueKey, @Nullable String groupKey,
			@Nullable Instant deadline, @Nullable Long expireAfterMillis, @Nullable Instant scheduledFor) {
		this(queue, handler, payload, priority, runAt, delayMillis, maxAttempts, uniqueKey, groupKey, deadline,
				expireAfterMillis, scheduledFor, null);
	}

	public NewJob(String queue, String handler, String payload, int priority, @Nullable Instant runAt,
			long delayMillis, int maxAttempts, @Nullable String uniqueKey, @Nullable String groupKey) {
		this(queue, handler, payload, priority, runAt, delayMillis, maxAttempts, uniqueKey, groupKey, null, null,
				null);
	}

	/** This job, fired for a schedule's tick. */
	public NewJob forTick(Instant tick) {
		return new NewJob(this.queue, this.handler, this.payload, this.priority, this.runAt, this.delayMillis,
				this.maxAttempts, this.uniqueKey, this.groupKey, this.deadline, this.expireAfterMillis, tick,
				this.headers, this.concurrencyKey, this.tags, this.meta);
	}

	/** This job, with these propagation headers ({@code null} for none). */
	public NewJob withHeaders(@Nullable String headers) {
		return new NewJob(this.queue, this.handler, this.payload, this.priority, this.runAt, this.delayMillis,
				this.maxAttempts, this.uniqueKey, this.groupKey, this.deadline, this.expireAfterMillis,
				this.scheduledFor, headers, this.concurrencyKey, this.tags, this.meta);
	}

	/** This job, with this concurrency key ({@code null} for none). */
	public NewJob withConcurrencyKey(@Nullable String concurrencyKey) {
		return new NewJob(this.queue, this.handler, this.payload, this.priority, this.runAt, this.delayMillis,
				this.maxAttempts, this.uniqueKey, this.groupKey, this.deadline, this.expireAfterMillis,
				this.scheduledFor, this.headers, concurrencyKey, this.tags, this.meta);
	}

	/**
	 * Whether it is due now and has nothing but its queue, handler, payload, priority and
	 * maximum attempts to store in its row: no key, deadline, tick or headers. Most jobs are;
	 * {@link Dialect#insertAllBare} inserts them with fewer columns to bind.
	 */
	boolean bare() {
		return this.runAt == null && this.delayMillis == 0 && this.uniqueKey == null && this.groupKey == null
				&& this.deadline == null && this.expireAfterMillis == null && this.scheduledFor == null
				&& this.headers == null && this.concurrencyKey == null;
	}

	/** Whether it carries tags or meta to store beside it. */
	boolean labelled() {
		return !this.tags.isEmpty() || !this.meta.isEmpty();
	}

}
