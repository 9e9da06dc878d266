package io.sqlqueue.dashboard.web;

import java.security.Principal;

import org.springframework.http.HttpStatus;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

import io.sqlqueue.admin.AdminResult;
import io.sqlqueue.admin.BulkAction;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.RefusedException;
import io.sqlqueue.dashboard.ActionResult;

/**
 * The dashboard's actions, each a POST that passes the {@link ActionGuard} first:
 * {@code api/jobs/{id}/retry}, {@code api/jobs/{id}/retry-from?record=N}, {@code api/jobs/{id}/cancel},
 * {@code api/jobs/retry-failed?queue=&handler=} and
 * {@code api/schedules/{name}/trigger|pause|resume}, {@code api/queues/{name}/pause|resume} and
 * {@code api/bulk/retry|cancel|delete} with a filter's parameters.
 * Each is a {@link QueueAdmin} action, done for the signed-in user (written so to the audit log),
 * and answers what it did ({@link ActionResult}), {@code done: false} with the reason when
 * the job or schedule was not in a state for it.
 */
final class DashboardActions {

	private final QueueAdmin admin;

	private final ActionGuard guard;

	DashboardActions(QueueAdmin admin, ActionGuard guard) {
		this.admin = admin;
		this.guard = guard;
	}

	ServerResponse retry(ServerRequest request) {
		return guarded(request, () -> answer(admin(request).retry(DashboardApi.pathId(request))));
	}

	/**
	 * Retries a failed durable job from one of its records ({@link QueueAdmin#retryFrom});
	 * a {@code record} missing, not a number or below 1 is a 400.
	 */
	ServerResponse retryFrom(ServerRequest request) {
		return guarded(request, () -> answer(admin(request).retryFrom(DashboardApi.pathId(request), record(request))));
	}

	ServerResponse cancel(ServerRequest request) {
		return guarded(request, () -> answer(admin(request).cancel(DashboardApi.pathId(request))));
	}

	ServerResponse retryFailed(ServerRequest request) {
		return guarded(request, () -> answer(
				admin(request).retryFailed(DashboardApi.name(request, "queue"), DashboardApi.name(request, "handler"))));
	}

	/**
	 * Retries, cancels or deletes every job that matches the request's filter
	 * ({@link QueueAdmin#bulk}); a request without a filter, or with a malformed one, is a 400.
	 */
	ServerResponse bulk(ServerRequest request) {
		BulkAction action = switch (request.pathVariable("action")) {
			case "retry" -> BulkAction.RETRY;
			case "cancel" -> BulkAction.CANCEL;
			case "delete" -> BulkAction.DELETE;
			default -> null;
		};
		if (action == null) {
			return Responses.problem(HttpStatus.NOT_FOUND, "Unknown bulk action '" + request.pathVariable("action")
					+ "'; use retry, cancel or delete");
		}
		return guarded(request, () -> {
			JobFilter filter = DashboardApi.filter(request);
			try {
				return Responses.json(admin(request).bulk(action, filter));
			}
			catch (RefusedException ex) {
				return Responses.problem(HttpStatus.BAD_REQUEST, ex.getMessage());
			}
		});
	}

	ServerResponse schedule(ServerRequest request) {
		String action = request.pathVariable("action");
		if (!action.equals("trigger") && !action.equals("pause") && !action.equals("resume")) {
			return Responses.problem(HttpStatus.NOT_FOUND, "Unknown schedule action '" + action
					+ "'; use trigger, pause or resume");
		}
		String name = request.pathVariable("name");
		QueueAdmin admin = admin(request);
		return guarded(request, () -> answer(switch (action) {
			case "trigger" -> admin.triggerSchedule(name);
			case "pause" -> admin.pauseSchedule(name);
			default -> admin.resumeSchedule(name);
		}));
	}

	/** Pauses or resumes a queue on every instance; a blank, malformed or unknown queue is a 400. */
	ServerResponse queue(ServerRequest request) {
		String action = request.pathVariable("action");
		if (!action.equals("pause") && !action.equals("resume")) {
			return Responses.problem(HttpStatus.NOT_FOUND, "Unknown queue action '" + action + "'; use pause or resume");
		}
		String name = request.pathVariable("name");
		return guarded(request, () -> {
			try {
				QueueAdmin admin = admin(request);
				return answer(action.equals("pause") ? admin.pauseQueue(name) : admin.resumeQueue(name));
			}
			catch (RefusedException ex) {
				return Responses.problem(HttpStatus.BAD_REQUEST, ex.getMessage());
			}
		});
	}

	/**
	 * The admin acting for the request's signed-in user (Spring Security's authentication,
	 * where it guards the dashboard): who the audit log and a pause record; no one without.
	 */
	private QueueAdmin admin(ServerRequest request) {
		return this.admin.by(request.principal().map(Principal::getName).orElse(null));
	}

	/** The record a retry from one starts at: numbered from 1, as the job's steps list them. */
	private static int record(ServerRequest request) {
		String text = request.param("record").map(String::strip).orElse("");
		try {
			int record = Integer.parseInt(text);
			if (record >= 1) {
				return record;
			}
		}
		catch (NumberFormatException ex) {
			// Said below, as for a number below 1.
		}
		throw new DashboardApi.BadRequest("'record' must be the number, from 1, of the first of the job's records "
				+ "to delete; not '" + text + "'");
	}

	private static ServerResponse answer(AdminResult result) {
		return Responses.json(ActionResult.of(result));
	}

	private ServerResponse guarded(ServerRequest request, java.util.function.Supplier<ServerResponse> action) {
		ActionGuard.Refusal refusal = this.guard.check(request);
		return (refusal != null) ? Responses.problem(refusal.status(), refusal.reason()) : action.get();
	}

}
