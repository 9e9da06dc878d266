/**
 * Not API; may change in any release. Recurring jobs' implementation,
 * {@link io.sqlqueue.internal.schedule.DefaultSchedules}, over the store.
 */
@NullMarked
package io.sqlqueue.internal.schedule;

import org.jspecify.annotations.NullMarked;
