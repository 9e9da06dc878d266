/**
 * Not API; may change in any release. The periodic loops, each a
 * {@link io.sqlqueue.internal.maintenance.PeriodicTask}: the reaper, the pruner, the vacuumer, the
 * queue statistics and the schedule firer. They call the store (and the capabilities' APIs); nothing
 * in the store or the Manager calls them.
 */
@NullMarked
package io.sqlqueue.internal.maintenance;

import org.jspecify.annotations.NullMarked;
