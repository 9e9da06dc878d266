package io.sqlqueue.testkit.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the test kit ({@code sqlqueue.test.*}).
 */
@ConfigurationProperties("sqlqueue.test")
public class SqlQueueTestProperties {

	/**
	 * Whether the Manager runs jobs and the schedule firer fires schedules in the background
	 * as in production; by default neither starts, and the test runs jobs and schedules with
	 * SqlQueueTester.
	 */
	private boolean runInBackground = false;

	public boolean isRunInBackground() {
		return this.runInBackground;
	}

	public void setRunInBackground(boolean runInBackground) {
		this.runInBackground = runInBackground;
	}

}
