package io.sqlqueue.observation;

import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;

import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobRecord;

/**
 * The context of one attempt ({@code sqlqueue.job}): a consumer whose carrier is the headers
 * its enqueue stored, from which a propagating handler (Micrometer Tracing's) takes the parent.
 */
public class JobAttemptContext extends ReceiverContext<Map<String, String>> {

	private final JobRecord job;

	private @Nullable JobOutcome outcome;

	public JobAttemptContext(JobRecord job, Map<String, String> headers) {
		super((carrier, key) -> carrier.get(key), Kind.CONSUMER);
		this.job = job;
		setCarrier(headers);
		setRemoteServiceName("sqlqueue");
	}

	/** The job as claimed for this attempt. */
	public JobRecord getJob() {
		return this.job;
	}

	/** How the attempt ended; {@code null} while it runs, or when this instance does not know. */
	public @Nullable JobOutcome getOutcome() {
		return this.outcome;
	}

	void setOutcome(@Nullable JobOutcome outcome) {
		this.outcome = outcome;
	}

}
