package io.sqlqueue.observation;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;

/**
 * The context of an enqueue ({@code sqlqueue.enqueue}): a producer whose carrier is the job's
 * headers, which a propagating handler (Micrometer Tracing's) fills with the trace context.
 */
public class JobEnqueueContext extends SenderContext<Map<String, String>> {

	private final String queue;

	private final String handler;

	private @Nullable Long jobId;

	public JobEnqueueContext(String queue, String handler) {
		super((carrier, key, value) -> {
			if (carrier != null) {
				carrier.put(key, value);
			}
		}, Kind.PRODUCER);
		this.queue = queue;
		this.handler = handler;
		setCarrier(new LinkedHashMap<>());
		setRemoteServiceName("sqlqueue");
	}

	public String getQueue() {
		return this.queue;
	}

	public String getHandler() {
		return this.handler;
	}

	/** The new job's id, once inserted. */
	public @Nullable Long getJobId() {
		return this.jobId;
	}

	void setJobId(long jobId) {
		this.jobId = jobId;
	}

	/** The headers to store: what the handlers put in the carrier. */
	public Map<String, String> getHeaders() {
		Map<String, String> carrier = getCarrier();
		return (carrier != null) ? carrier : Map.of();
	}

}
