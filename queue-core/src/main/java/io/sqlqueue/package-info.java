/**
 * sqlqueue: a durable background-job queue in the application's own SQL database.
 * {@link io.sqlqueue.JobQueue} enqueues, {@link io.sqlqueue.JobHandler} marks the code
 * that runs a job, and the Manager runs them.
 * <p>
 * Workflows live here too: jobs that run only after other jobs ({@link io.sqlqueue.Job#after(long...)},
 * {@link io.sqlqueue.Workflow}), and batches whose callback runs once all their jobs have
 * finished ({@link io.sqlqueue.Batch}), all in the queue's own table.
 * <p>
 * This package is the API's base: it depends on no other sqlqueue package. The capabilities'
 * APIs ({@code flow}, {@code schedule}, {@code handler}, {@code observation}) depend on it;
 * the runtime lives under {@code io.sqlqueue.internal}, which no API type imports.
 */
@NullMarked
package io.sqlqueue;

import org.jspecify.annotations.NullMarked;
