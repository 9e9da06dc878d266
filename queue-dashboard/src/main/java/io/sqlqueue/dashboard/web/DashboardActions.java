package io.sqlqueue.dashboard.web;

import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

import io.sqlqueue.dashboard.Operations;

/**
 * The dashboard's actions, each a POST that passes the {@link ActionGuard} first:
 * {@code api/jobs/{id}/retry}, {@code api/jobs/{id}/cancel},
 * {@code api/jobs/retry-failed?queue=&handler=} and
 * {@code api/schedules/{name}/trigger|pause|resume}. Each answers what it did
 * ({@link io.sqlqueue.dashboard.ActionResult}), {@code done: false} with the reason when
 * the job or schedule was not in a state for it.
 */
final class DashboardActions {

	private final Operations operations;

	private final ActionGuard guard;

	DashboardActions(Operations operations, ActionGuard guard) {
		this.operations = operations;
		this.guard = guard;
	}

	ServerResponse retry(ServerRequest request) {
		return guarded(request, () -> Responses.json(this.operations.retry(DashboardApi.pathId(request))));
	}

	ServerResponse cancel(ServerRequest request) {
		return guarded(request, () -> Responses.json(this.operations.cancel(DashboardApi.pathId(request))));
	}

	ServerResponse retryFailed(ServerRequest request) {
		return guarded(request, () -> Responses.json(this.operations
			.retryFailed(DashboardApi.name(request, "queue"), DashboardApi.name(request, "handler"))));
	}

	ServerResponse schedule(ServerRequest request) {
		String action = request.pathVariable("action");
		if (!action.equals("trigger") && !action.equals("pause") && !action.equals("resume")) {
			return Responses.problem(HttpStatus.NOT_FOUND, "Unknown schedule action '" + action
					+ "'; use trigger, pause or resume");
		}
		return guarded(request,
				() -> Responses.json(this.operations.schedule(request.pathVariable("name"), action)));
	}

	private ServerResponse guarded(ServerRequest request, java.util.function.Supplier<ServerResponse> action) {
		ActionGuard.Refusal refusal = this.guard.check(request);
		return (refusal != null) ? Responses.problem(refusal.status(), refusal.reason()) : action.get();
	}

}
