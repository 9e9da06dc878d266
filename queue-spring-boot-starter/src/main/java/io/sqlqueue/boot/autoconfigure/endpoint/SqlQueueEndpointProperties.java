package io.sqlqueue.boot.autoconfigure.endpoint;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the {@code sqlqueue} Actuator endpoint, under
 * {@code management.endpoint.sqlqueue.*} beside Actuator's own
 * {@code management.endpoint.sqlqueue.access}. The dashboard follows it too, so that both
 * views of a job show the same.
 */
@ConfigurationProperties("management.endpoint.sqlqueue")
public class SqlQueueEndpointProperties {

	/**
	 * Whether a job's payload is shown (by the endpoint and the dashboard); payloads may hold
	 * personal data.
	 */
	private boolean showPayload = false;

	public boolean isShowPayload() {
		return this.showPayload;
	}

	public void setShowPayload(boolean showPayload) {
		this.showPayload = showPayload;
	}

}
