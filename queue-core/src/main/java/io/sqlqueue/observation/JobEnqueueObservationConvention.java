package io.sqlqueue.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and tags the observation of an enqueue; declare a bean of it to change them. */
public interface JobEnqueueObservationConvention extends ObservationConvention<JobEnqueueContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof JobEnqueueContext;
	}

}
