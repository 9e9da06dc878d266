/**
 * Not API; may change in any release. Running jobs: the {@link io.sqlqueue.internal.manager.Manager} and its workers, and the
 * {@link io.sqlqueue.internal.manager.Reaper}.
 */
@NullMarked
package io.sqlqueue.internal.manager;

import org.jspecify.annotations.NullMarked;
