package io.sqlqueue.dashboard.web;

import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

import io.sqlqueue.JobStatus;
import io.sqlqueue.Names;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.dashboard.JobDetails;
import io.sqlqueue.dashboard.OverviewReader;
import io.sqlqueue.dashboard.TablesView;
import io.sqlqueue.internal.store.JobBrowser;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.JobPage;

/**
 * The dashboard's reads as JSON: {@code GET api/overview}, {@code GET api/tables} (the health
 * of the queue's tables), {@code GET api/jobs} (filters
 * {@code queue}, {@code handler}, {@code status}, {@code search}, {@code batch}; cursors
 * {@code before} or {@code after}; {@code limit}), {@code GET api/jobs/{id}} and
 * {@code GET api/batches/{id}}. A malformed parameter is a 400 that says which.
 */
final class DashboardApi {

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1," + Names.MAX_HANDLER_LENGTH + "}");

	private final OverviewReader overview;

	private final JobBrowser browser;

	private final JobDetails details;

	private final int pageSize;

	private final QueueAdmin admin;

	DashboardApi(OverviewReader overview, JobBrowser browser, JobDetails details, QueueAdmin admin, int pageSize) {
		this.admin = admin;
		this.overview = overview;
		this.browser = browser;
		this.details = details;
		this.pageSize = pageSize;
	}

	ServerResponse overview(ServerRequest request) {
		return Responses.json(this.overview.read());
	}

	/** The tables' health as last read on the queue's schedule: never a read of its own. */
	ServerResponse tables(ServerRequest request) {
		return Responses.json(TablesView.of(this.admin.tableHealth(), Instant.now()));
	}

	ServerResponse jobs(ServerRequest request) {
		JobFilter filter = new JobFilter(name(request, "queue"), name(request, "handler"), status(request),
				search(request), id(request, "batch"));
		Long before = id(request, "before");
		Long after = id(request, "after");
		if (before != null && after != null) {
			throw new BadRequest("Give 'before' or 'after', not both");
		}
		int limit = number(request, "limit", this.pageSize);
		if (limit < 1 || limit > JobBrowser.MAX_PAGE_SIZE) {
			throw new BadRequest("'limit' must be 1 to " + JobBrowser.MAX_PAGE_SIZE);
		}
		JobPage page = (after != null) ? this.browser.newerThan(filter, after, limit)
				: this.browser.olderThan(filter, before, limit);
		return Responses.json(page);
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

	private static @Nullable JobStatus status(ServerRequest request) {
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

	private static @Nullable String search(ServerRequest request) {
		String value = text(request, "search");
		if (value != null && (value.length() > Names.MAX_KEY_LENGTH || value.indexOf('\0') >= 0)) {
			throw new BadRequest("'search' must be a job id or a key of at most " + Names.MAX_KEY_LENGTH
					+ " characters");
		}
		return value;
	}

	private static @Nullable Long id(ServerRequest request, String parameter) {
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
