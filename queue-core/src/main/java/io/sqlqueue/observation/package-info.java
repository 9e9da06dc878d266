/**
 * Observations of the queue's work, through the Micrometer Observation API: an enqueue
 * ({@code sqlqueue.enqueue}, a producer) stores the propagation context with its job, and
 * each attempt ({@code sqlqueue.job}, a consumer) runs as its child. The core sees only
 * {@link io.sqlqueue.observation.JobObservations}; Micrometer is needed only for
 * {@link io.sqlqueue.observation.MicrometerJobObservations} and its contexts and conventions.
 */
@NullMarked
package io.sqlqueue.observation;

import org.jspecify.annotations.NullMarked;
