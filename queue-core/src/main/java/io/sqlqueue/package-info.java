/**
 * sqlqueue: a durable background-job queue in the application's own SQL database.
 * {@link io.sqlqueue.JobQueue} enqueues, {@link io.sqlqueue.JobHandler} marks the code
 * that runs a job, and the {@link io.sqlqueue.manager.Manager} runs them.
 */
@NullMarked
package io.sqlqueue;

import org.jspecify.annotations.NullMarked;
