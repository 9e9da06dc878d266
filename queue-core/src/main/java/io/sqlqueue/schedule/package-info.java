/**
 * Recurring jobs: schedules stored in {@code queue_schedule}, fired once per tick across
 * every instance.
 */
@NullMarked
package io.sqlqueue.schedule;

import org.jspecify.annotations.NullMarked;
