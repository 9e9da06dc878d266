package io.sqlqueue.dashboard.autoconfigure;

import java.util.regex.Pattern;

import org.springframework.core.env.Environment;

/**
 * Checks the dashboard's path at start-up: a plain path, and not one that Actuator serves.
 * With Actuator's default base path the {@code sqlqueue} endpoint is
 * {@code /actuator/sqlqueue} and the dashboard {@code /sqlqueue}; with
 * {@code management.endpoints.web.base-path=/} the endpoint would be {@code /sqlqueue}
 * itself, and a dashboard inside the base path would hide endpoints or be hidden by them.
 */
final class DashboardPath {

	private static final Pattern PATH = Pattern.compile("(/(?!\\.\\.?(/|$))[A-Za-z0-9._~-]+)+");

	private DashboardPath() {
	}

	static String check(String path, Environment environment) {
		if (!PATH.matcher(path).matches()) {
			throw new IllegalStateException("sqlqueue.dashboard.path must be a path such as /sqlqueue or /ops/queue "
					+ "(starting with '/', without a trailing '/'), not '" + path + "'");
		}
		String managementPort = environment.getProperty("management.server.port");
		if (managementPort != null && !managementPort.equals(environment.getProperty("server.port", "8080"))) {
			return path;
		}
		String base = environment.getProperty("management.endpoints.web.base-path", "/actuator");
		base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
		boolean clash = base.isEmpty() ? path.equals("/sqlqueue") || path.startsWith("/sqlqueue/")
				: path.equals(base) || path.startsWith(base + "/");
		if (clash) {
			throw new IllegalStateException("sqlqueue.dashboard.path '" + path + "' clashes with Actuator's endpoints "
					+ "(management.endpoints.web.base-path '" + (base.isEmpty() ? "/" : base)
					+ "'); choose another path for the dashboard");
		}
		return path;
	}

}
