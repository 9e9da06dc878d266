package io.sqlqueue.admin;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Job;
import io.sqlqueue.JobStatus;
import io.sqlqueue.Names;

/**
 * Which jobs a search ({@link QueueAdmin#search}), a count ({@link QueueAdmin#count}) or a
 * bulk action ({@link QueueAdmin#bulk}) is about; every part set must match, and a part
 * left out matches every job. Values are always bound as parameters, never written into
 * SQL; a malformed one is refused here ({@link Refusal#INVALID_FILTER}).
 *
 * <pre>{@code
 * JobFilter.builder().queue("mail").status(JobStatus.FAILED).tag("campaign-42").meta("tenant", "acme")
 *     .payload("customer.id", "7").createdFrom(since).build();
 * }</pre>
 *
 * @param queue only jobs of this queue
 * @param handler only jobs of this handler
 * @param status only jobs in this state
 * @param search only the job with this id (when the text is a number), or jobs with this
 * unique key or group key, matched exactly
 * @param batch only the jobs of this batch (its members; not its callback)
 * @param tags only jobs that carry every one of these tags ({@link Job#tags})
 * @param meta only jobs whose metadata has each of these entries ({@link Job#meta})
 * @param payload only jobs whose payload has each of these fields with this value, a field
 * named by its path of object keys ({@code customer.id}) and compared as text; not on H2
 * (docs/operations.md)
 * @param createdFrom only jobs enqueued at or after this instant
 * @param createdBefore only jobs enqueued before this instant
 * @param parked only jobs parked on a durable sleep or a wait for a signal: {@code QUEUED},
 * due when the sleep ends or the wait times out (docs/durable-steps.md); {@code false}: any job
 */
public record JobFilter(@Nullable String queue, @Nullable String handler, @Nullable JobStatus status,
		@Nullable String search, @Nullable Long batch, List<String> tags, Map<String, String> meta,
		Map<String, String> payload, @Nullable Instant createdFrom, @Nullable Instant createdBefore,
		boolean parked) {

	/** The most tags, meta entries or payload fields one filter names, each. */
	public static final int MAX_CONDITIONS = 5;

	/** The most keys of a payload field's path. */
	public static final int MAX_PATH_DEPTH = 8;

	private static final Pattern PATH_KEY = Pattern.compile("[A-Za-z0-9_-]{1,64}");

	/** Every job. */
	public static final JobFilter ALL = new JobFilter(null, null, null, null);

	public JobFilter {
		try {
			queue = (queue != null) ? Names.requireQueue(queue) : null;
			handler = (handler != null) ? Names.requireHandler(handler) : null;
			search = (search != null) ? Names.requireKey("search", search) : null;
			tags = List.copyOf(new LinkedHashSet<>(tags));
			for (String tag : tags) {
				Names.requireTag("tag", tag);
			}
			meta.forEach((name, value) -> Names.requireMetaValue(Names.requireTag("meta name", name), value));
		}
		catch (IllegalArgumentException ex) {
			throw new RefusedException(Refusal.INVALID_FILTER, ex.getMessage());
		}
		meta = Collections.unmodifiableMap(new TreeMap<>(meta));
		payload.forEach(JobFilter::requirePayloadCondition);
		payload = Collections.unmodifiableMap(new TreeMap<>(payload));
		if (tags.size() > MAX_CONDITIONS || meta.size() > MAX_CONDITIONS || payload.size() > MAX_CONDITIONS) {
			throw new RefusedException(Refusal.INVALID_FILTER,
					"at most " + MAX_CONDITIONS + " tags, " + MAX_CONDITIONS + " meta entries and " + MAX_CONDITIONS
							+ " payload fields");
		}
		if (createdFrom != null && createdBefore != null && !createdFrom.isBefore(createdBefore)) {
			throw new RefusedException(Refusal.INVALID_FILTER,
					"createdFrom (" + createdFrom + ") must be before createdBefore (" + createdBefore + ")");
		}
	}

	/** A filter of any job, parked or not. */
	public JobFilter(@Nullable String queue, @Nullable String handler, @Nullable JobStatus status,
			@Nullable String search, @Nullable Long batch, List<String> tags, Map<String, String> meta,
			Map<String, String> payload, @Nullable Instant createdFrom, @Nullable Instant createdBefore) {
		this(queue, handler, status, search, batch, tags, meta, payload, createdFrom, createdBefore, false);
	}

	/** A filter by queue, handler, state and search text. */
	public JobFilter(@Nullable String queue, @Nullable String handler, @Nullable JobStatus status,
			@Nullable String search) {
		this(queue, handler, status, search, null);
	}

	/** A filter by queue, handler, state, search text and batch. */
	public JobFilter(@Nullable String queue, @Nullable String handler, @Nullable JobStatus status,
			@Nullable String search, @Nullable Long batch) {
		this(queue, handler, status, search, batch, List.of(), Map.of(), Map.of(), null, null);
	}

	/** A filter to build part by part. */
	public static Builder builder() {
		return new Builder();
	}

	/** The jobs of this batch that pass this filter. */
	public JobFilter inBatch(long batch) {
		return new JobFilter(this.queue, this.handler, this.status, this.search, batch, this.tags, this.meta,
				this.payload, this.createdFrom, this.createdBefore, this.parked);
	}

	/** Whether it names no condition at all, so matches every job. */
	public boolean isEmpty() {
		return this.queue == null && this.handler == null && this.status == null && this.search == null
				&& this.batch == null && this.tags.isEmpty() && this.meta.isEmpty() && this.payload.isEmpty()
				&& this.createdFrom == null && this.createdBefore == null && !this.parked;
	}

	/** The keys of a payload field's path ({@code customer.id}: {@code customer}, {@code id}). */
	public static List<String> pathKeys(String path) {
		return List.of(path.split("\\.", -1));
	}

	private static void requirePayloadCondition(String path, String value) {
		List<String> keys = pathKeys(path);
		if (keys.size() > MAX_PATH_DEPTH || !keys.stream().allMatch((key) -> PATH_KEY.matcher(key).matches())) {
			throw new RefusedException(Refusal.INVALID_FILTER, "payload field '" + path + "' must be up to "
					+ MAX_PATH_DEPTH + " keys of 1 to 64 characters of A-Z, a-z, 0-9, '_' or '-', joined by '.'");
		}
		if (value.length() > Names.MAX_META_VALUE_LENGTH || value.indexOf('\0') >= 0) {
			throw new RefusedException(Refusal.INVALID_FILTER, "the value of payload field '" + path
					+ "' must have at most " + Names.MAX_META_VALUE_LENGTH + " characters and no NUL");
		}
	}

	/** Builds a {@link JobFilter}; every part is optional. */
	public static final class Builder {

		private @Nullable String queue;

		private @Nullable String handler;

		private @Nullable JobStatus status;

		private @Nullable String search;

		private @Nullable Long batch;

		private final List<String> tags = new ArrayList<>();

		private final Map<String, String> meta = new LinkedHashMap<>();

		private final Map<String, String> payload = new LinkedHashMap<>();

		private @Nullable Instant createdFrom;

		private @Nullable Instant createdBefore;

		private boolean parked;

		private Builder() {
		}

		public Builder queue(@Nullable String queue) {
			this.queue = queue;
			return this;
		}

		public Builder handler(@Nullable String handler) {
			this.handler = handler;
			return this;
		}

		public Builder status(@Nullable JobStatus status) {
			this.status = status;
			return this;
		}

		public Builder search(@Nullable String search) {
			this.search = search;
			return this;
		}

		public Builder batch(@Nullable Long batch) {
			this.batch = batch;
			return this;
		}

		/** Adds tags that every job found carries. */
		public Builder tag(String... tags) {
			this.tags.addAll(List.of(tags));
			return this;
		}

		/** Adds a metadata entry that every job found has. */
		public Builder meta(String name, String value) {
			this.meta.put(name, value);
			return this;
		}

		/** Adds a payload field, by its path of object keys ({@code customer.id}), and its value as text. */
		public Builder payload(String path, String value) {
			this.payload.put(path, value);
			return this;
		}

		/** Only jobs enqueued at or after this instant. */
		public Builder createdFrom(@Nullable Instant from) {
			this.createdFrom = from;
			return this;
		}

		/** Only jobs enqueued before this instant. */
		public Builder createdBefore(@Nullable Instant before) {
			this.createdBefore = before;
			return this;
		}

		/** Only jobs parked on a durable sleep or a wait for a signal (when {@code true}). */
		public Builder parked(boolean parked) {
			this.parked = parked;
			return this;
		}

		/** @throws RefusedException ({@link Refusal#INVALID_FILTER}) when a part is malformed */
		public JobFilter build() {
			return new JobFilter(this.queue, this.handler, this.status, this.search, this.batch, this.tags, this.meta,
					this.payload, this.createdFrom, this.createdBefore, this.parked);
		}

	}

}
