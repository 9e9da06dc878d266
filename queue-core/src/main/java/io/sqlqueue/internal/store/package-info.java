/**
 * Not API; may change in any release.
 * The database seam: {@link io.sqlqueue.internal.store.QueueStore}, whose JDBC implementation
 * {@link io.sqlqueue.internal.store.JobStore} runs the queue's verbs as SQL, written once in
 * {@code JobSql} (and {@code FlowSql}, {@code WorkflowSql}, {@code ScheduleSql}) from the
 * pieces each {@link io.sqlqueue.internal.store.Dialect} supplies; the transactions it runs them in are
 * named in one place, {@code StoreTransactions}. Each database's dialect has its own package
 * ({@code store.postgresql}, {@code store.mariadb}, {@code store.h2}, {@code store.sqlite}),
 * which imports this one and none of which this one imports; {@code store.dialect} chooses
 * among them. Every statement, rendered per dialect, is in the test resources'
 * {@code sql/<database>/} folders.
 */
@NullMarked
package io.sqlqueue.internal.store;

import org.jspecify.annotations.NullMarked;
