package io.sqlqueue.dashboard.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the sqlqueue dashboard, under {@code sqlqueue.dashboard.*}.
 */
@ConfigurationProperties("sqlqueue.dashboard")
public class SqlQueueDashboardProperties {

	/**
	 * Whether to serve the dashboard.
	 */
	private boolean enabled = true;

	/**
	 * Path the dashboard is served under, such as '/sqlqueue' or '/ops/queue'.
	 */
	private String path = "/sqlqueue";

	/**
	 * Whether the dashboard may act: retry and cancel jobs, retry the failed jobs of a
	 * queue or handler, trigger, pause and resume schedules. Off, it is read-only.
	 */
	private boolean actionsEnabled = false;

	/**
	 * Hosts besides loopback ones (localhost, 127.0.0.0/8, [::1]) that the dashboard answers
	 * on, such as 'ops.example.com' (names or addresses, without scheme or port), or '*' for
	 * any host. Other hosts are refused, against DNS rebinding, unless Spring Security is on
	 * the class path and this is empty: then the application's own rules decide.
	 */
	private List<String> allowedHosts = new ArrayList<>();

	/**
	 * How often an open overview refreshes. The jobs are counted at most this often,
	 * however many pages are open, and after a count that took long at most once per ten
	 * times as long as it took (ten intervals at most).
	 */
	private Duration refreshInterval = Duration.ofSeconds(5);

	/**
	 * Jobs per page of the jobs list.
	 */
	private int pageSize = 50;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getPath() {
		return this.path;
	}

	public void setPath(String path) {
		this.path = path;
	}

	public boolean isActionsEnabled() {
		return this.actionsEnabled;
	}

	public void setActionsEnabled(boolean actionsEnabled) {
		this.actionsEnabled = actionsEnabled;
	}

	public List<String> getAllowedHosts() {
		return this.allowedHosts;
	}

	public void setAllowedHosts(List<String> allowedHosts) {
		this.allowedHosts = allowedHosts;
	}

	public Duration getRefreshInterval() {
		return this.refreshInterval;
	}

	public void setRefreshInterval(Duration refreshInterval) {
		this.refreshInterval = refreshInterval;
	}

	public int getPageSize() {
		return this.pageSize;
	}

	public void setPageSize(int pageSize) {
		this.pageSize = pageSize;
	}

}
