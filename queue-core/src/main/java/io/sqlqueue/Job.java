package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

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
 * due now, the configured maximum of attempts, no deadline.
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

	/** The most {@link #tags(String...) tags} one job carries. */
	public static final int MAX_TAGS = 10;

	/** The most {@link #meta(String, String) metadata entries} one job carries. */
	public static final int MAX_META = 10;

	/** The most jobs one job may {@link #after(long...) run after}. */
	public static final int MAX_DEPENDENCIES = 100;

	private final String handler;

	private final @Nullable Object payload;

	private @Nullable String queue;

	private int priority;

	private @Nullable Instant runAt;

	private @Nullable Duration delay;

	private @Nullable Integer maxAttempts;

	private @Nullable String uniqueKey;

	private @Nullable String groupKey;

	private @Nullable Instant deadline;

	private @Nullable Duration expireAfter;

	private @Nullable String concurrencyKey;

	private List<Long> after = List.of();

	private DependencyFailure onDependencyFailure = DependencyFailure.CANCEL;

	private List<String> tags = List.of();

	private Map<String, String> meta = Map.of();

	private Job(String handler, @Nullable Object payload) {
		this.handler = handler;
		this.payload = payload;
	}

	/** A copy with one change: the fields are set only here, on a job nobody else holds yet. */
	private Job with(Consumer<Job> change) {
		Job copy = new Job(this.handler, this.payload);
		copy.queue = this.queue;
		copy.priority = this.priority;
		copy.runAt = this.runAt;
		copy.delay = this.delay;
		copy.maxAttempts = this.maxAttempts;
		copy.uniqueKey = this.uniqueKey;
		copy.groupKey = this.groupKey;
		copy.deadline = this.deadline;
		copy.expireAfter = this.expireAfter;
		copy.concurrencyKey = this.concurrencyKey;
		copy.after = this.after;
		copy.onDependencyFailure = this.onDependencyFailure;
		copy.tags = this.tags;
		copy.meta = this.meta;
		change.accept(copy);
		return copy;
	}

	/** A job for the handler with this name; the payload is encoded as JSON ({@code null} for none). */
	public static Job of(String handler, @Nullable Object payload) {
		return new Job(handler, payload);
	}

	/**
	 * The queue (lane with its own workers) to run in; by default the queue of this
	 * application's handler of that name, else {@code default}. An application that enqueues
	 * for another service's handler names that handler's queue here, or the other service's
	 * Managers never see the job.
	 */
	public Job queue(String queue) {
		return with((job) -> job.queue = queue);
	}

	/** Higher runs first within a queue; ties run in order of enqueue. */
	public Job priority(int priority) {
		return with((job) -> job.priority = priority);
	}

	/**
	 * Not before this instant, from {@link #EARLIEST_RUN_AT} (year 1000) to
	 * {@link #LATEST_RUN_AT} (year 9999); a past instant is due at once. Replaces a
	 * {@link #delay(Duration) delay}.
	 */
	public Job runAt(Instant runAt) {
		requireStorable("runAt", runAt);
		return with((job) -> {
			job.runAt = runAt;
			job.delay = null;
		});
	}

	/**
	 * Not before this long after the enqueue, measured on the database's clock: zero to
	 * {@link #MAX_DELAY} (100 years). Replaces a {@link #runAt(Instant) runAt}.
	 */
	public Job delay(Duration delay) {
		requireDelay("delay", delay);
		return with((job) -> {
			job.delay = delay;
			job.runAt = null;
		});
	}

	/** How many attempts (claims) before the job fails for good; at least 1. */
	public Job maxAttempts(int maxAttempts) {
		if (maxAttempts < 1) {
			throw new InvalidJobException("maxAttempts must be at least 1, got " + maxAttempts);
		}
		return with((job) -> job.maxAttempts = maxAttempts);
	}

	/**
	 * At most one unfinished ({@code QUEUED} or {@code RUNNING}) job has this key: enqueueing
	 * another throws {@link DuplicateJobException}.
	 */
	public Job uniqueKey(String uniqueKey) {
		String key = Names.requireKey("uniqueKey", uniqueKey);
		return with((job) -> job.uniqueKey = key);
	}

	/** Jobs with one group key run one at a time, in the order they were enqueued. */
	public Job groupKey(String groupKey) {
		String key = Names.requireKey("groupKey", groupKey);
		return with((job) -> job.groupKey = key);
	}

	/**
	 * The key the limits of the job's queue look it up by (docs/flow-control.md): a limit
	 * for this key, or for a prefix of it ({@code customer:*}), caps how many jobs with this
	 * key run at once and start per period, across every instance. Without a matching limit
	 * the key changes nothing. The same rules as {@link #uniqueKey(String) unique keys}: 1 to
	 * 255 characters, no NUL.
	 */
	public Job concurrencyKey(String concurrencyKey) {
		String key = Names.requireKey("concurrencyKey", concurrencyKey);
		return with((job) -> job.concurrencyKey = key);
	}

	/**
	 * Not started by this instant (on the database's clock), the job never starts: it ends
	 * {@code CANCELLED} with the reason in its last error. A retry that would begin after
	 * the deadline does not begin either; an attempt under way when it passes runs on.
	 * Replaces an {@link #expireAfter(Duration) expireAfter}.
	 */
	public Job deadline(Instant deadline) {
		requireStorable("deadline", deadline);
		return with((job) -> {
			job.deadline = deadline;
			job.expireAfter = null;
		});
	}

	/**
	 * A {@link #deadline(Instant) deadline} this long after the enqueue, on the database's
	 * clock: more than zero, up to {@link #MAX_DELAY}. Replaces a deadline.
	 */
	public Job expireAfter(Duration expireAfter) {
		requireDelay("expireAfter", expireAfter);
		if (expireAfter.isZero()) {
			throw new InvalidJobException("expireAfter must be more than zero");
		}
		return with((job) -> {
			job.expireAfter = expireAfter;
			job.deadline = null;
		});
	}

	/**
	 * Runs only after these jobs (enqueued before, or earlier in the same call) have
	 * succeeded: until then the job is {@code WAITING}, and the claim never looks at it. It
	 * becomes due in the transaction that records the last one's success. One that fails for
	 * good or is cancelled settles the job by its {@link #onDependencyFailure policy}; one that
	 * had succeeded already counts as done. Adds to the jobs named before.
	 * @throws InvalidJobException for more than {@link #MAX_DEPENDENCIES} jobs
	 */
	public Job after(long... ids) {
		List<Long> after = new ArrayList<>(this.after);
		for (long id : ids) {
			if (!after.contains(id)) {
				after.add(id);
			}
		}
		if (after.size() > MAX_DEPENDENCIES) {
			throw new InvalidJobException("A job may run after at most " + MAX_DEPENDENCIES + " jobs, got "
					+ after.size());
		}
		List<Long> dependencies = List.copyOf(after);
		return with((job) -> job.after = dependencies);
	}

	/**
	 * What a dependency that fails for good or is cancelled does to this job: cancel it
	 * ({@link DependencyFailure#CANCEL}, the default) or run it anyway ({@link DependencyFailure#RUN}).
	 */
	public Job onDependencyFailure(DependencyFailure policy) {
		return with((job) -> job.onDependencyFailure = policy);
	}

	/**
	 * Labels to find the job by ({@code QueueAdmin.search}, the dashboard), added to those
	 * named before: at most {@link #MAX_TAGS}, each 1 to {@value Names#MAX_TAG_LENGTH}
	 * characters of {@code A-Z a-z 0-9 _ . : -}. A tag named twice is kept once. Stored with
	 * the job and never changed.
	 * @throws InvalidJobException for a malformed tag or too many
	 */
	public Job tags(String... tags) {
		Set<String> all = new LinkedHashSet<>(this.tags);
		for (String tag : tags) {
			all.add(Names.requireTag("tag", tag));
		}
		if (all.size() > MAX_TAGS) {
			throw new InvalidJobException("A job carries at most " + MAX_TAGS + " tags, got " + all.size());
		}
		List<String> copy = List.copyOf(all);
		return with((job) -> job.tags = copy);
	}

	/**
	 * A metadata entry to find the job by, such as {@code meta("tenant", "acme")}: at most
	 * {@link #MAX_META} per job, the name as a {@link #tags(String...) tag}, the value 1 to
	 * {@value Names#MAX_META_VALUE_LENGTH} characters without NUL. Replaces an entry of the
	 * same name. Stored with the job and never changed.
	 * @throws InvalidJobException for a malformed name or value, or too many entries
	 */
	public Job meta(String name, String value) {
		Names.requireTag("meta name", name);
		Names.requireMetaValue(name, value);
		Map<String, String> all = new TreeMap<>(this.meta);
		all.put(name, value);
		if (all.size() > MAX_META) {
			throw new InvalidJobException("A job carries at most " + MAX_META + " meta entries, got " + all.size());
		}
		Map<String, String> copy = Collections.unmodifiableMap(all);
		return with((job) -> job.meta = copy);
	}

	private static void requireStorable(String what, Instant instant) {
		if (instant.isBefore(EARLIEST_RUN_AT) || instant.isAfter(LATEST_RUN_AT)) {
			throw new InvalidJobException(what + " must be from " + EARLIEST_RUN_AT + " to " + LATEST_RUN_AT
					+ " (the times every supported database stores), got " + instant);
		}
	}

	private static void requireDelay(String what, Duration delay) {
		if (delay.isNegative()) {
			throw new InvalidJobException(what + " must not be negative: " + delay);
		}
		if (delay.compareTo(MAX_DELAY) > 0) {
			throw new InvalidJobException(what + " must be at most " + MAX_DELAY.toDays() + " days (100 years), got "
					+ delay);
		}
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

	public @Nullable Instant deadline() {
		return this.deadline;
	}

	public @Nullable Duration expireAfter() {
		return this.expireAfter;
	}

	public @Nullable String concurrencyKey() {
		return this.concurrencyKey;
	}

	/** The ids of the jobs this one runs after; empty for none. */
	public List<Long> after() {
		return this.after;
	}

	public DependencyFailure onDependencyFailure() {
		return this.onDependencyFailure;
	}

	/** The job's tags, in the order first named; empty for none. */
	public List<String> tags() {
		return this.tags;
	}

	/** The job's metadata, by name; empty for none. */
	public Map<String, String> meta() {
		return this.meta;
	}

	@Override
	public String toString() {
		return "Job[handler=" + this.handler + ", queue=" + this.queue + "]";
	}

}
