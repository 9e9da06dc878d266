/**
 * Workflows: jobs that run only after other jobs ({@link io.sqlqueue.Job#after(long...)},
 * {@link io.sqlqueue.workflow.Workflow}), and batches whose callback runs once all their
 * jobs have finished ({@link io.sqlqueue.workflow.Batch}), all in the queue's own table.
 */
@NullMarked
package io.sqlqueue.workflow;

import org.jspecify.annotations.NullMarked;
