/**
 * Running jobs: the {@link io.sqlqueue.manager.Manager} and its workers, and the
 * {@link io.sqlqueue.manager.Reaper}.
 */
@NullMarked
package io.sqlqueue.manager;

import org.jspecify.annotations.NullMarked;
