package io.sqlqueue.boot.autoconfigure;

import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.sqlqueue.observation.JobAttemptObservationConvention;
import io.sqlqueue.observation.JobEnqueueObservationConvention;
import io.sqlqueue.observation.JobObservations;
import io.sqlqueue.observation.MicrometerJobObservations;

/**
 * Observations of enqueues and attempts where Micrometer Tracing is on the class path and
 * the application has an {@link ObservationRegistry}: the enqueue stores the trace context
 * with its job, and each attempt runs as its child. Without tracing nothing is observed
 * and nothing extra stored, so the queue's meters stay as they are.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = { "io.micrometer.observation.ObservationRegistry", "io.micrometer.tracing.Tracer" })
@ConditionalOnProperty(prefix = "sqlqueue.observations", name = "enabled", matchIfMissing = true)
class ObservationConfiguration {

	@Bean
	@ConditionalOnMissingBean
	JobObservations sqlqueueJobObservations(ObjectProvider<ObservationRegistry> registry,
			ObjectProvider<JobEnqueueObservationConvention> enqueueConvention,
			ObjectProvider<JobAttemptObservationConvention> attemptConvention) {
		ObservationRegistry observationRegistry = registry.getIfUnique();
		if (observationRegistry == null) {
			return JobObservations.NONE;
		}
		return new MicrometerJobObservations(observationRegistry, enqueueConvention.getIfUnique(),
				attemptConvention.getIfUnique());
	}

}
