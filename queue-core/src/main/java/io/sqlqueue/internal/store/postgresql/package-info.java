/**
 * PostgreSQL's dialect, and its notifications (LISTEN/NOTIFY) of new work, finished jobs and cancels.
 */
@NullMarked
package io.sqlqueue.internal.store.postgresql;

import org.jspecify.annotations.NullMarked;
