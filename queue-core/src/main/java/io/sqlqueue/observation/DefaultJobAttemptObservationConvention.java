package io.sqlqueue.observation;

import io.micrometer.common.KeyValues;

import io.sqlqueue.JobOutcome;

/**
 * {@code sqlqueue.job}, named {@code "<handler> process"}, with the low-cardinality tags
 * {@code queue}, {@code handler} and {@code outcome} ({@code succeeded}, {@code retried},
 * {@code failed}, {@code cancelled}, {@code expired}, or {@code unknown}: a lost lease, or
 * while it runs) and the high-cardinality {@code sqlqueue.job.id} and
 * {@code sqlqueue.job.attempt}.
 */
public class DefaultJobAttemptObservationConvention implements JobAttemptObservationConvention {

	/** The observation's name. */
	public static final String NAME = "sqlqueue.job";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(JobAttemptContext context) {
		return context.getJob().handler() + " process";
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(JobAttemptContext context) {
		JobOutcome outcome = context.getOutcome();
		return KeyValues.of("queue", context.getJob().queue(), "handler", context.getJob().handler(), "outcome",
				(outcome != null) ? outcome.tag() : "unknown");
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(JobAttemptContext context) {
		return KeyValues.of("sqlqueue.job.id", String.valueOf(context.getJob().id()), "sqlqueue.job.attempt",
				String.valueOf(context.getJob().attempts()));
	}

}
