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

	/**
	 * Longest a transaction may hold the database's horizon back while the queue's tables have
	 * dead rows it keeps from being reclaimed, before health reports the horizon status.
	 */
	private Duration maxHorizonAge = Duration.ofMinutes(5);

	/**
	 * Health status reported while a transaction holds the queue's dead rows back longer than
	 * the maximum horizon age: 'WARN' (add it to 'management.endpoint.health.status.order'),
	 * or 'UP' to show the holder in the details only.
	 */
	private String horizonStatus = "WARN";

	/**
	 * Longest a read of the queue's counts may wait for the database before health reports
	 * DOWN. The indicator never queries (it reports the last read), so it answers at once;
	 * while the database does not answer, a read waits as long as the pool allows (HikariCP's
	 * connection-timeout, 30 s by default), and this turns that wait into DOWN sooner.
	 */
	private Duration maxReadTime = Duration.ofSeconds(10);

	public Duration getMaxReadTime() {
		return this.maxReadTime;
	}

	public void setMaxReadTime(Duration maxReadTime) {
		this.maxReadTime = maxReadTime;
	}

	public Duration getMaxHorizonAge() {
		return this.maxHorizonAge;
	}

	public void setMaxHorizonAge(Duration maxHorizonAge) {
		this.maxHorizonAge = maxHorizonAge;
	}

	public String getHorizonStatus() {
		return this.horizonStatus;
	}

	public void setHorizonStatus(String horizonStatus) {
		this.horizonStatus = horizonStatus;
	}

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
