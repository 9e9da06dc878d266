/**
 * Recurring jobs declared by the application: {@link io.sqlqueue.boot.schedule.Recurring @Recurring}
 * on {@code @JobHandler} methods and {@code sqlqueue.schedules.*} properties.
 */
@NullMarked
package io.sqlqueue.boot.schedule;

import org.jspecify.annotations.NullMarked;
