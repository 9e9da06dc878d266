package io.sqlqueue.boot.autoconfigure.health;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of sqlqueue's health indicator, under {@code management.health.sqlqueue.*}
 * beside Actuator's own {@code management.health.sqlqueue.enabled}.
 */
@ConfigurationProperties("management.health.sqlqueue")
public class SqlQueueHealthIndicatorProperties {

	/**
	 * Longest a due job may wait before its queue counts as stuck.
	 */
	private Duration maxDueAge = Duration.ofMinutes(5);

	/**
	 * Health status reported while a queue is stuck, such as 'DOWN' or a custom one
	 * (add a custom one to 'management.endpoint.health.status.order').
	 */
	private String staleStatus = "DOWN";

	public Duration getMaxDueAge() {
		return this.maxDueAge;
	}

	public void setMaxDueAge(Duration maxDueAge) {
		this.maxDueAge = maxDueAge;
	}

	public String getStaleStatus() {
		return this.staleStatus;
	}

	public void setStaleStatus(String staleStatus) {
		this.staleStatus = staleStatus;
	}

}
