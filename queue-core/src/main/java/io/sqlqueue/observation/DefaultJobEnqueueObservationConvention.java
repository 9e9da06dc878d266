package io.sqlqueue.observation;

import io.micrometer.common.KeyValues;

/**
 * {@code sqlqueue.enqueue}, named {@code "<handler> enqueue"}, with the low-cardinality tags
 * {@code queue} and {@code handler} and the high-cardinality {@code sqlqueue.job.id}.
 */
public class DefaultJobEnqueueObservationConvention implements JobEnqueueObservationConvention {

	/** The observation's name. */
	public static final String NAME = "sqlqueue.enqueue";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(JobEnqueueContext context) {
		return context.getHandler() + " enqueue";
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(JobEnqueueContext context) {
		return KeyValues.of("queue", context.getQueue(), "handler", context.getHandler());
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(JobEnqueueContext context) {
		Long id = context.getJobId();
		return (id != null) ? KeyValues.of("sqlqueue.job.id", id.toString()) : KeyValues.empty();
	}

}
