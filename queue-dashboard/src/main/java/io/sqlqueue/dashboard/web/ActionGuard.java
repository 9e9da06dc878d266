package io.sqlqueue.dashboard.web;

import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.web.cors.CorsUtils;
import org.springframework.web.servlet.function.ServerRequest;

/**
 * The checks every action (a POST) passes before it runs, cheapest first, after the
 * router's check of the request's host ({@link DashboardHosts}), without which the
 * same-origin checks below would pass for a page whose site's name was pointed at the
 * dashboard (DNS rebinding):
 * <ol>
 * <li>actions are enabled ({@link DashboardAccess});</li>
 * <li>the request comes from the dashboard's own page: it carries the
 * {@value #HEADER} header, which a cross-site form cannot send and a cross-site script
 * can send only after a CORS preflight that the dashboard never answers, and the browser's
 * {@code Sec-Fetch-Site} and {@code Origin}, where sent, say it is same-origin;</li>
 * <li>where Spring Security is on the class path, someone is signed in (anonymous is
 * not enough, whatever the application's rules let through). Spring Security's own CSRF
 * check, when the application has it on, has run before this.</li>
 * </ol>
 */
final class ActionGuard {

	/** The header the dashboard's page sends with every action. */
	static final String HEADER = "X-SqlQueue-Dashboard";

	private static final Set<String> SAME_ORIGIN = Set.of("same-origin");

	private final DashboardAccess access;

	ActionGuard(DashboardAccess access) {
		this.access = access;
	}

	/** Why the request may not act, or {@code null} when it may. */
	@Nullable Refusal check(ServerRequest request) {
		if (this.access.actionRefusal() != null) {
			return new Refusal(HttpStatus.FORBIDDEN, this.access.actionRefusal());
		}
		if (request.headers().firstHeader(HEADER) == null) {
			return new Refusal(HttpStatus.FORBIDDEN, "Actions must come from the dashboard's page (header " + HEADER
					+ " missing): a cross-site request is refused");
		}
		String fetchSite = request.headers().firstHeader("Sec-Fetch-Site");
		if (fetchSite != null && !SAME_ORIGIN.contains(fetchSite)) {
			return new Refusal(HttpStatus.FORBIDDEN, "Cross-site request refused (Sec-Fetch-Site: " + fetchSite + ")");
		}
		if (CorsUtils.isCorsRequest(request.servletRequest())) {
			return new Refusal(HttpStatus.FORBIDDEN,
					"Cross-origin request refused (Origin: " + request.headers().firstHeader("Origin") + ")");
		}
		if (this.access.actionsNeedUser() && request.principal().isEmpty()) {
			return new Refusal(HttpStatus.FORBIDDEN, "Actions need a signed-in user");
		}
		return null;
	}

	record Refusal(HttpStatus status, String reason) {
	}

}
