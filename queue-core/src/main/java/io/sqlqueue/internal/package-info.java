/**
 * Not API; may change in any release. The runtime behind the API: {@link io.sqlqueue.internal.DefaultJobQueue}
 * here, the store, the Manager, the maintenance loops and the capabilities' implementations in the packages
 * below. Code under {@code io.sqlqueue.internal} may use the API; nothing outside it (but the starter, the
 * dashboard and the test kit, which wire it) may use it.
 */
@NullMarked
package io.sqlqueue.internal;

import org.jspecify.annotations.NullMarked;
