package io.sqlqueue.dashboard.web;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

import io.sqlqueue.JobStatus;
import io.sqlqueue.Names;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.dashboard.JobDetails;
import io.sqlqueue.dashboard.Overview;
import io.sqlqueue.dashboard.OverviewReader;
import io.sqlqueue.dashboard.ReadsView;
import io.sqlqueue.dashboard.TablesView;
import io.sqlqueue.admin.FilterText;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.JobPage;
import io.sqlqueue.admin.JobSummary;
import io.sqlqueue.admin.RefusedException;

/**
 * The dashboard's reads as JSON: {@code GET api/overview}, {@code GET api/tables} (the health
 * of the queue's tables), {@code GET api/jobs} (the filter's parameters as {@link FilterText}
 * reads them: {@code queue}, {@code handler}, {@code status}, {@code search}, {@code batch},
 * {@code tags}, {@code meta}, {@code payload}, {@code createdFrom}, {@code createdBefore};
 * cursors {@code before} or {@code after}; {@code limit}), {@code GET api/jobs/count} (the
 * same filter), {@code GET api/jobs/{id}} and {@code GET api/batches/{id}}. Searches and
 * counts are {@link QueueAdmin}'s, read from the read replica where there is one, and say so
 * ({@code reads}). A malformed parameter is a 400 that says which; a replica that fails a read
 * is a 503 that says so ({@link io.sqlqueue.admin.ReplicaReadException}).
 */
final class DashboardApi {

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1," + Names.MAX_HANDLER_LENGTH + "}");

	private final OverviewReader overview;

	private final JobDetails details;

	private final int pageSize;

	private final QueueAdmin admin;

	DashboardApi(OverviewReader overview, JobDetails details, QueueAdmin admin, int pageSize) {
		this.admin = admin;
		this.overview = overview;
		this.details = details;
		this.pageSize = pageSize;
	}

	ServerResponse overview(ServerRequest request) {
		return Responses.json(this.overview.read());
	}

	/** The tables' health as last read on the queue's schedule: never a read of its own. */
	ServerResponse tables(ServerRequest request) {
		return Responses.json(tables());
	}

	private TablesView tables() {
		return TablesView.of(this.admin.tableHealth(), Instant.now());
	}

	/** What the page carries to draw the overview at once: the two reads the overview fetches. */
	FirstPaint firstPaint() {
		return new FirstPaint(this.overview.read(), tables());
	}

	/** The overview and the tables' health, as {@code api/overview} and {@code api/tables} answer them. */
	record FirstPaint(Overview overview, TablesView tables) {
	}

	/** The newest entries of the audit log ({@code limit} 1 to {@link QueueAdmin#MAX_BULK}, default 100). */
	ServerResponse audit(ServerRequest request) {
		int limit = number(request, "limit", 100);
		if (limit < 1 || limit > QueueAdmin.MAX_BULK) {
			throw new BadRequest("'limit' must be 1 to " + QueueAdmin.MAX_BULK);
		}
		return Responses.json(this.admin.audit(limit));
	}

	ServerResponse jobs(ServerRequest request) {
		JobFilter filter = filter(request);
		Long before = id(request, "before");
		Long after = id(request, "after");
		if (before != null && after != null) {
			throw new BadRequest("Give 'before' or 'after', not both");
		}
		int limit = number(request, "limit", this.pageSize);
		if (limit < 1 || limit > QueueAdmin.MAX_PAGE_SIZE) {
			throw new BadRequest("'limit' must be 1 to " + QueueAdmin.MAX_PAGE_SIZE);
		}
		ReadsView reads = ReadsView.of(this.admin.readStaleness());
		JobPage page = refusedAsBadRequest(() -> (after != null) ? this.admin.searchNewer(filter, after, limit)
				: this.admin.search(filter, before, limit));
		return Responses.json(new JobsView(page.jobs(), page.older(), page.newer(), reads));
	}

	/** How many jobs match the filter now, for the confirmation of a bulk action. */
	ServerResponse count(ServerRequest request) {
		JobFilter filter = filter(request);
		ReadsView reads = ReadsView.of(this.admin.readStaleness());
		long count = refusedAsBadRequest(() -> this.admin.count(filter));
		return Responses.json(Map.of("count", count, "all", filter.isEmpty(), "reads", reads));
	}

	/**
	 * A page of jobs ({@link JobPage}) with where it was read.
	 * @param reads the read replica, and how far behind it said it was, or the queue's own database
	 */
	record JobsView(List<JobSummary> jobs, @Nullable Long older, @Nullable Long newer, ReadsView reads) {
	}

	/**
	 * The filter of a request: its queue, handler, state, search text and batch checked here
	 * first (each malformed one named), then every part as {@link FilterText} reads it.
	 */
	static JobFilter filter(ServerRequest request) {
		name(request, "queue");
		name(request, "handler");
		status(request);
		search(request);
		id(request, "batch");
		return refusedAsBadRequest(() -> FilterText.parse((name) -> request.params().getOrDefault(name, List.of())));
	}

	/** What {@code work} answers; a {@link RefusedException} (a malformed filter) becomes a 400. */
	static <T> T refusedAsBadRequest(Supplier<T> work) {
		try {
			return work.get();
		}
		catch (RefusedException ex) {
			throw new BadRequest(ex.getMessage());
		}
	}

	ServerResponse job(ServerRequest request) {
		long id = pathId(request);
		return this.details.find(id)
			.map(Responses::json)
			.orElseGet(() -> Responses.problem(HttpStatus.NOT_FOUND, "No job " + id));
	}

	ServerResponse batch(ServerRequest request) {
		long id = pathId(request, "batch");
		return this.details.batch(id)
			.map(Responses::json)
			.orElseGet(() -> Responses.problem(HttpStatus.NOT_FOUND, "No batch " + id));
	}

	static long pathId(ServerRequest request) {
		return pathId(request, "job");
	}

	/** The path's {@code id}, of a {@code what} (named in the error when it is no number). */
	static long pathId(ServerRequest request, String what) {
		String text = request.pathVariable("id");
		try {
			return Long.parseLong(text);
		}
		catch (NumberFormatException ex) {
			throw new BadRequest("Not a " + what + " id: '" + text + "'");
		}
	}

	/** A queue or handler name; one that no job can have is refused rather than searched for. */
	static @Nullable String name(ServerRequest request, String parameter) {
		String value = text(request, parameter);
		if (value != null && !NAME.matcher(value).matches()) {
			throw new BadRequest("'" + parameter + "' must be a queue or handler name: letters, digits, '_', '.' "
					+ "or '-'");
		}
		return value;
	}

	static @Nullable JobStatus status(ServerRequest request) {
		String value = text(request, "status");
		if (value == null) {
			return null;
		}
		try {
			return JobStatus.valueOf(value.toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new BadRequest("'status' must be one of " + java.util.Arrays.stream(JobStatus.values())
				.map(JobStatus::name)
				.collect(java.util.stream.Collectors.joining(", ")));
		}
	}

	static @Nullable String search(ServerRequest request) {
		String value = text(request, "search");
		if (value != null && (value.length() > Names.MAX_KEY_LENGTH || value.indexOf('\0') >= 0)) {
			throw new BadRequest("'search' must be a job id or a key of at most " + Names.MAX_KEY_LENGTH
					+ " characters");
		}
		return value;
	}

	static @Nullable Long id(ServerRequest request, String parameter) {
		String value = text(request, parameter);
		if (value == null) {
			return null;
		}
		try {
			return Long.parseLong(value);
		}
		catch (NumberFormatException ex) {
			throw new BadRequest("'" + parameter + "' must be a " + (parameter.equals("batch") ? "batch" : "job")
					+ " id");
		}
	}

	private static int number(ServerRequest request, String parameter, int fallback) {
		String value = text(request, parameter);
		try {
			return (value != null) ? Integer.parseInt(value) : fallback;
		}
		catch (NumberFormatException ex) {
			throw new BadRequest("'" + parameter + "' must be a number");
		}
	}

	private static @Nullable String text(ServerRequest request, String parameter) {
		Optional<String> value = request.param(parameter).map(String::strip);
		return value.filter((text) -> !text.isEmpty()).orElse(null);
	}

	/** A malformed request: answered 400 with its message. */
	static final class BadRequest extends RuntimeException {

		BadRequest(String message) {
			super(message);
		}

	}

}
