package io.sqlqueue.dashboard.web;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * What the dashboard lets through, decided once at start-up: reads, actions, and whether
 * an action needs a signed-in user. It never opens more than the {@code sqlqueue}
 * Actuator endpoint does: that endpoint read-only makes the dashboard read-only, and
 * switched off makes the dashboard refuse every read too.
 *
 * @param readRefusal why reads are refused, or {@code null} when they are allowed
 * @param actionRefusal why actions are refused, or {@code null} when they are allowed
 * @param actionsNeedUser whether an action needs an authenticated (not anonymous) user: so where Spring Security is
 * on the class path, whatever the application's own rules let through
 */
public record DashboardAccess(@Nullable String readRefusal, @Nullable String actionRefusal, boolean actionsNeedUser) {

	/**
	 * @param actionsEnabled {@code sqlqueue.dashboard.actions-enabled}
	 * @param endpointAccess the {@code sqlqueue} endpoint's access ({@code NONE}, {@code READ_ONLY},
	 * {@code UNRESTRICTED}), or {@code null} without Actuator
	 * @param securityPresent whether Spring Security is on the class path
	 */
	public static DashboardAccess resolve(boolean actionsEnabled, @Nullable String endpointAccess,
			boolean securityPresent) {
		String access = (endpointAccess != null) ? endpointAccess.toUpperCase(Locale.ROOT) : "UNRESTRICTED";
		if (access.equals("NONE")) {
			String refusal = "The sqlqueue Actuator endpoint is switched off (management.endpoint.sqlqueue.access=none),"
					+ " and the dashboard follows it";
			return new DashboardAccess(refusal, refusal, securityPresent);
		}
		if (!actionsEnabled) {
			return new DashboardAccess(null, "Actions are off: set sqlqueue.dashboard.actions-enabled=true to retry, "
					+ "cancel, trigger or pause from the dashboard", securityPresent);
		}
		if (access.equals("READ_ONLY")) {
			return new DashboardAccess(null, "Actions are off: the sqlqueue Actuator endpoint is read-only "
					+ "(management.endpoint.sqlqueue.access=read-only), and the dashboard follows it", securityPresent);
		}
		return new DashboardAccess(null, null, securityPresent);
	}

	public boolean actionsEnabled() {
		return this.actionRefusal == null;
	}

}
