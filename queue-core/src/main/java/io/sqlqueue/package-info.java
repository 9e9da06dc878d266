/**
 * sqlqueue: a durable background-job queue in the application's own SQL database.
 * {@link io.sqlqueue.JobQueue} enqueues, {@link io.sqlqueue.JobHandler} marks the code
 * that runs a job, and the {@link io.sqlqueue.manager.Manager} runs them.
 * <p>
 * Workflows live here too: jobs that run only after other jobs ({@link io.sqlqueue.Job#after(long...)},
 * {@link io.sqlqueue.Workflow}), and batches whose callback runs once all their jobs have
 * finished ({@link io.sqlqueue.Batch}), all in the queue's own table.
 */
@NullMarked
package io.sqlqueue;

import org.jspecify.annotations.NullMarked;
