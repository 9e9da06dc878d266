/**
 * The database seam: {@link io.sqlqueue.store.JobStore} runs the queue's verbs as SQL,
 * written once in {@link io.sqlqueue.store.JobSql} from the pieces each
 * {@link io.sqlqueue.store.Dialect} supplies.
 */
@NullMarked
package io.sqlqueue.store;

import org.jspecify.annotations.NullMarked;
