/**
 * Not API; may change in any release.
 * The database seam: {@link io.sqlqueue.internal.store.QueueStore}, whose JDBC implementation
 * {@link io.sqlqueue.internal.store.JobStore} assembles the parts that run the queue's verbs as
 * SQL (one per entity and use: {@code JobInserts}, {@code QueueClaims}, {@code JobCompletions},
 * {@code JobEnds}, {@code JobLeases}, {@code JobReads}, {@code OperatorWrites},
 * {@code BulkJobWrites}, {@code TableUpkeep}, and the stores of flows, workflows, schedules,
 * steps, the cluster, attempts and the audit log), each on a {@code StoreContext} it is handed,
 * none of them knowing the assembly. The statements are written once, per use
 * ({@code JobSql}, {@code JobEndSql}, {@code LeaseSql}, {@code JobReadSql}, {@code JobBulkSql},
 * {@code FlowSql}, {@code WorkflowSql}, {@code ScheduleSql}, …), from the pieces each
 * {@link io.sqlqueue.internal.store.Dialect} supplies; the transactions they run in are named in
 * one place, {@code StoreTransactions}. Each database's dialect has its own package
 * ({@code store.postgresql}, {@code store.mariadb}, {@code store.h2}, {@code store.sqlite}),
 * which imports this one and none of which this one imports; {@code store.dialect} chooses
 * among them. Every statement, rendered per dialect, is in the test resources'
 * {@code sql/<database>/} folders.
 */
@NullMarked
package io.sqlqueue.internal.store;

import org.jspecify.annotations.NullMarked;
