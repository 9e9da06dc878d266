/**
 * Not API; may change in any release. The database seam: {@link io.sqlqueue.internal.store.JobStore} runs the queue's verbs as SQL,
 * written once in {@link io.sqlqueue.internal.store.JobSql} from the pieces each
 * {@link io.sqlqueue.internal.store.Dialect} supplies. Flow control's admission arithmetic
 * ({@link io.sqlqueue.internal.store.Admission}, {@link io.sqlqueue.internal.store.RateWindow}) is
 * here while the limited claim ({@link io.sqlqueue.internal.store.FlowClaim}) is. The store is the
 * bottom of the runtime: it uses the API, and no other internal package.
 */
@NullMarked
package io.sqlqueue.internal.store;

import org.jspecify.annotations.NullMarked;
