package io.sqlqueue.dashboard.web;

import java.time.Duration;
import java.util.Optional;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ClassPathResource;
import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.function.HandlerFunction;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.ReplicaReadException;
import io.sqlqueue.dashboard.JobDetails;
import io.sqlqueue.dashboard.OverviewReader;

/**
 * The dashboard's routes under its path ({@code /sqlqueue} by default): the page at
 * {@code {path}/}, its script and style under {@code {path}/assets/}, the JSON API under
 * {@code {path}/api/}. Plain Spring MVC handlers, so the application's security rules,
 * filters and error handling apply to them as to its own. Each of them answers only on the
 * {@link DashboardHosts allowed hosts}.
 */
public final class DashboardRouter implements RouterFunction<ServerResponse> {

	private final RouterFunction<ServerResponse> routes;

	/**
	 * @param path where the dashboard is served, e.g. {@code /sqlqueue} (starts with {@code /}, no trailing one)
	 * @param refresh how often the overview refreshes
	 * @param pageSize jobs per page unless a request says otherwise
	 * @param json writes the overview the page carries for its first paint, as the API writes it
	 */
	public DashboardRouter(String path, DashboardAccess access, DashboardHosts hosts, OverviewReader overview,
			JobDetails details, QueueAdmin admin, Duration refresh, int pageSize, JsonMapper json) {
		DashboardApi api = new DashboardApi(overview, details, admin, pageSize);
		DashboardPage page = new DashboardPage(access, refresh.toMillis(), pageSize, api::firstPaint, json);
		DashboardActions actions = new DashboardActions(admin, new ActionGuard(access));
		String lastSegment = path.substring(path.lastIndexOf('/') + 1);
		RouterFunction<ServerResponse> reads = RouterFunctions.route()
			.GET(path + "/api/overview", api::overview)
			.GET(path + "/api/tables", api::tables)
			.GET(path + "/api/audit", api::audit)
			.GET(path + "/api/jobs", api::jobs)
			.GET(path + "/api/jobs/count", api::count)
			.GET(path + "/api/jobs/{id}", api::job)
			.GET(path + "/api/batches/{id}", api::batch)
			.filter((request, next) -> (access.readRefusal() != null)
					? Responses.problem(HttpStatus.FORBIDDEN, access.readRefusal()) : next.handle(request))
			.build();
		RouterFunction<ServerResponse> writes = RouterFunctions.route()
			.POST(path + "/api/jobs/retry-failed", actions::retryFailed)
			.POST(path + "/api/bulk/{action}", actions::bulk)
			.POST(path + "/api/jobs/{id}/retry", actions::retry)
			.POST(path + "/api/jobs/{id}/retry-from", actions::retryFrom)
			.POST(path + "/api/jobs/{id}/cancel", actions::cancel)
			.POST(path + "/api/schedules/{name}/{action}", actions::schedule)
			.POST(path + "/api/queues/{name}/{action}", actions::queue)
			.build();
		this.routes = RouterFunctions.route()
			// Relative, so that it holds under a servlet context path: /app/sqlqueue -> /app/sqlqueue/
			.GET(path, (request) -> Responses.redirect(lastSegment + "/"))
			.GET(path + "/", page::render)
			.add(RouterFunctions.resources(path + "/assets/**",
					new ClassPathResource(DashboardPage.LOCATION + "assets/"),
					(resource, headers) -> Responses.protect(headers)))
			.add(reads)
			.add(writes)
			.onError(DashboardApi.BadRequest.class,
					(ex, request) -> Responses.problem(HttpStatus.BAD_REQUEST, ex.getMessage()))
			.onError(ReplicaReadException.class,
					(ex, request) -> Responses.problem(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage()))
			.filter((request, next) -> {
				String refusal = hosts.refusal(request.servletRequest().getServerName());
				return (refusal != null) ? Responses.problem(HttpStatus.FORBIDDEN, refusal) : next.handle(request);
			})
			.build();
	}

	@Override
	public Optional<HandlerFunction<ServerResponse>> route(ServerRequest request) {
		return this.routes.route(request);
	}

	@Override
	public void accept(RouterFunctions.Visitor visitor) {
		this.routes.accept(visitor);
	}

}
