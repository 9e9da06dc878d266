package io.sqlqueue.boot.actuate.endpoint;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

import io.sqlqueue.admin.BulkAction;
import io.sqlqueue.admin.BulkResult;
import io.sqlqueue.admin.FilterText;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.JobPage;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.RefusedException;

/**
 * The jobs a filter matches, for {@link SqlQueueEndpoint}: a page of them
 * ({@code GET /sqlqueue/jobs/search}), how many ({@code GET /sqlqueue/jobs/count}), and
 * retrying, cancelling or deleting them all, or retrying the failed jobs of a queue or
 * handler ({@code POST /sqlqueue}). The searches and counts read the read replica where the
 * application has one, and say so.
 */
final class JobFilterOperations {

	/** Jobs per page of a search when the request does not say. */
	static final int DEFAULT_PAGE_SIZE = 50;

	private final QueueAdmin admin;

	JobFilterOperations(QueueAdmin admin) {
		this.admin = admin;
	}

	/**
	 * A page of the jobs that match ({@code name} {@code search}) or how many match
	 * ({@code count}), as {@link SqlQueueEndpoint#read} describes.
	 */
	OperationResponseBody read(String name, JobFilter filter, @Nullable Long before, @Nullable Long after,
			@Nullable Integer limit) {
		if (name.equals("count")) {
			return count(filter);
		}
		if (before != null && after != null) {
			throw new InvalidEndpointRequestException("Give 'before' or 'after', not both", "Invalid cursor");
		}
		int size = (limit != null) ? limit : DEFAULT_PAGE_SIZE;
		ReadsDescriptor reads = ReadsDescriptor.of(this.admin.readStaleness());
		JobPage page = (after != null) ? this.admin.searchNewer(filter, after, size)
				: this.admin.search(filter, before, size);
		return new SearchDescriptor(page.jobs(), page.older(), page.newer(), reads);
	}

	/** How many jobs match, with where that was read. */
	CountDescriptor count(JobFilter filter) {
		ReadsDescriptor reads = ReadsDescriptor.of(this.admin.readStaleness());
		return new CountDescriptor(this.admin.count(filter), filter.isEmpty(), reads);
	}

	/** Retries, cancels or deletes every job that matches, as {@code admin}, in chunks. */
	BulkDescriptor bulk(QueueAdmin admin, String action, BulkAction bulk, JobFilter filter) {
		BulkResult result = admin.bulk(bulk, filter);
		return new BulkDescriptor(action, result.done(), result.matched(), result.changed(), result.skipped(),
				result.chunks(), result.message());
	}

	/** As {@link SqlQueueEndpoint#retryFailed(String, String, String, Integer)}, as {@code admin}. */
	RetriedDescriptor retryFailed(QueueAdmin admin, String action, @Nullable String queue, @Nullable String handler,
			@Nullable Integer limit) {
		if (!action.equals("retry-failed")) {
			throw new InvalidEndpointRequestException(
					"Unknown action '" + action + "'; use 'retry-failed', or name a job: /sqlqueue/{id}",
					"Unknown action");
		}
		List<Long> ids;
		try {
			ids = admin.retryFailed(queue, handler, (limit != null) ? limit : QueueAdmin.MAX_BULK).ids();
		}
		catch (RefusedException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid limit");
		}
		return new RetriedDescriptor(action, queue, handler, ids.size(), ids);
	}

	/** The filter of a request's parameters, as {@link FilterText} reads them; a malformed one is refused. */
	static JobFilter filter(@Nullable String queue, @Nullable String handler, @Nullable String status,
			@Nullable String search, @Nullable String tags, @Nullable String meta, @Nullable String payload,
			@Nullable String createdFrom, @Nullable String createdBefore) {
		Map<String, @Nullable String> values = new HashMap<>();
		values.put("queue", queue);
		values.put("handler", handler);
		values.put("status", status);
		values.put("search", search);
		values.put("tags", tags);
		values.put("meta", meta);
		values.put("payload", payload);
		values.put("createdFrom", createdFrom);
		values.put("createdBefore", createdBefore);
		return FilterText.parse((parameter) -> {
			String value = values.get(parameter);
			return (value != null) ? List.of(value) : List.of();
		});
	}

}
