package io.sqlqueue.dashboard.autoconfigure;

import java.time.Duration;

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
	 * How often an open overview refreshes. The jobs are counted at most this often,
	 * however many pages are open.
	 */
	private Duration refreshInterval = Duration.ofSeconds(5);

	/**
	 * Jobs per page of the jobs list.
	 */
	private int pageSize = 50;

	/**
	 * Most jobs whose attempts this instance remembers for their timelines (start, end and
	 * owner of each); 0 remembers none.
	 */
	private int attemptHistory = 10_000;

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

	public int getAttemptHistory() {
		return this.attemptHistory;
	}

	public void setAttemptHistory(int attemptHistory) {
		this.attemptHistory = attemptHistory;
	}

}
