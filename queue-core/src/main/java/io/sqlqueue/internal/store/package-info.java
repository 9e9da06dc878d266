/**
 * Not API; may change in any release. The database seam: {@link io.sqlqueue.internal.store.JobStore} runs the queue's verbs as SQL,
 * written once in {@link io.sqlqueue.internal.store.JobSql} from the pieces each
 * {@link io.sqlqueue.internal.store.Dialect} supplies.
 */
@NullMarked
package io.sqlqueue.internal.store;

import org.jspecify.annotations.NullMarked;
