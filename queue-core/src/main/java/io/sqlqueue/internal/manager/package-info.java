/**
 * Not API; may change in any release. Running jobs: the {@link io.sqlqueue.internal.manager.Manager}
 * and its workers; the periodic loops beside it are in {@code io.sqlqueue.internal.maintenance}.
 */
@NullMarked
package io.sqlqueue.internal.manager;

import org.jspecify.annotations.NullMarked;
