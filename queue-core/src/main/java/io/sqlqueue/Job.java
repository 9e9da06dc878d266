package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A job to enqueue: which handler runs it, with what payload, and how. Immutable; each
 * method returns a changed copy.
 *
 * <pre>{@code
 * jobs.enqueue(Job.of("report.daily", args).queue("reports").delay(Duration.ofHours(1)).uniqueKey("report:" + day));
 * }</pre>
 *
 * Unset values come from the handler's {@link JobHandler} declaration when this
 * application has it, else from the queue's defaults: queue {@code default}, priority 0,
 * due now, the configured maximum of attempts.
 */
public final class Job {

	/**
	 * The earliest {@link #runAt(Instant) runAt}: the start of the range of times that every
	 * supported database stores (MariaDB's and MySQL's {@code DATETIME} from year 1000).
	 */
	public static final Instant EARLIEST_RUN_AT = Instant.parse("1000-01-01T00:00:00Z");

	/**
	 * The latest {@link #runAt(Instant) runAt}: the end of the range of times that every
	 * supported database stores ({@code DATETIME} and SQLite's four-digit years to 9999).
	 */
	public static final Instant LATEST_RUN_AT = Instant.parse("9999-12-31T23:59:59.999Z");

	/** The longest {@link #delay(Duration) delay}: 100 years (36,525 days). */
	public static final Duration MAX_DELAY = Duration.ofDays(36_525);

	private final String handler;

	private final @Nullable Object payload;

	private final @Nullable String queue;

	private final int priority;

	private final @Nullable Instant runAt;

	private final @Nullable Duration delay;

	private final @Nullable Integer maxAttempts;

	private final @Nullable String uniqueKey;

	private final @Nullable String groupKey;

	private Job(String handler, @Nullable Object payload, @Nullable String queue, int priority,
			@Nullable Instant runAt, @Nullable Duration delay, @Nullable Integer maxAttempts,
			@Nullable String uniqueKey, @Nullable String groupKey) {
		this.handler = handler;
		this.payload = payload;
		this.queue = queue;
		this.priority = priority;
		this.runAt = runAt;
		this.delay = delay;
		this.maxAttempts = maxAttempts;
		this.uniqueKey = uniqueKey;
		this.groupKey = groupKey;
	}

	/** A job for the handler with this name; the payload is encoded as JSON ({@code null} for none). */
	public static Job of(String handler, @Nullable Object payload) {
		return new Job(handler, payload, null, 0, null, null, null, null, null);
	}

	/** The queue (lane with its own workers) to run in; by default the handler's queue. */
	public Job queue(String queue) {
		return new Job(this.handler, this.payload, queue, this.priority, this.runAt, this.delay, this.maxAttempts,
				this.uniqueKey, this.groupKey);
	}

	/** Higher runs first within a queue; ties run in order of enqueue. */
	public Job priority(int priority) {
		return new Job(this.handler, this.payload, this.queue, priority, this.runAt, this.delay, this.maxAttempts,
				this.uniqueKey, this.groupKey);
	}

	/**
	 * Not before this instant, from {@link #EARLIEST_RUN_AT} (year 1000) to
	 * {@link #LATEST_RUN_AT} (year 9999); a past instant is due at once. Replaces a
	 * {@link #delay(Duration) delay}.
	 */
	public Job runAt(Instant runAt) {
		if (runAt.isBefore(EARLIEST_RUN_AT) || runAt.isAfter(LATEST_RUN_AT)) {
			throw new InvalidJobException("runAt must be from " + EARLIEST_RUN_AT + " to " + LATEST_RUN_AT
					+ " (the times every supported database stores), got " + runAt);
		}
		return new Job(this.handler, this.payload, this.queue, this.priority, runAt, null, this.maxAttempts,
				this.uniqueKey, this.groupKey);
	}

	/**
	 * Not before this long after the enqueue, measured on the database's clock: zero to
	 * {@link #MAX_DELAY} (100 years). Replaces a {@link #runAt(Instant) runAt}.
	 */
	public Job delay(Duration delay) {
		if (delay.isNegative()) {
			throw new InvalidJobException("delay must not be negative: " + delay);
		}
		if (delay.compareTo(MAX_DELAY) > 0) {
			throw new InvalidJobException("delay must be at most " + MAX_DELAY.toDays() + " days (100 years), got "
					+ delay);
		}
		return new Job(this.handler, this.payload, this.queue, this.priority, null, delay, this.maxAttempts,
				this.uniqueKey, this.groupKey);
	}

	/** How many attempts (claims) before the job fails for good; at least 1. */
	public Job maxAttempts(int maxAttempts) {
		if (maxAttempts < 1) {
			throw new InvalidJobException("maxAttempts must be at least 1, got " + maxAttempts);
		}
		return new Job(this.handler, this.payload, this.queue, this.priority, this.runAt, this.delay, maxAttempts,
				this.uniqueKey, this.groupKey);
	}

	/**
	 * At most one unfinished ({@code QUEUED} or {@code RUNNING}) job has this key: enqueueing
	 * another throws {@link DuplicateJobException}.
	 */
	public Job uniqueKey(String uniqueKey) {
		return new Job(this.handler, this.payload, this.queue, this.priority, this.runAt, this.delay, this.maxAttempts,
				Names.requireKey("uniqueKey", uniqueKey), this.groupKey);
	}

	/** Jobs with one group key run one at a time, in the order they were enqueued. */
	public Job groupKey(String groupKey) {
		return new Job(this.handler, this.payload, this.queue, this.priority, this.runAt, this.delay, this.maxAttempts,
				this.uniqueKey, Names.requireKey("groupKey", groupKey));
	}

	public String handler() {
		return this.handler;
	}

	public @Nullable Object payload() {
		return this.payload;
	}

	public @Nullable String queue() {
		return this.queue;
	}

	public int priority() {
		return this.priority;
	}

	public @Nullable Instant runAt() {
		return this.runAt;
	}

	public @Nullable Duration delay() {
		return this.delay;
	}

	public @Nullable Integer maxAttempts() {
		return this.maxAttempts;
	}

	public @Nullable String uniqueKey() {
		return this.uniqueKey;
	}

	public @Nullable String groupKey() {
		return this.groupKey;
	}

	@Override
	public String toString() {
		return "Job[handler=" + this.handler + ", queue=" + this.queue + "]";
	}

}
