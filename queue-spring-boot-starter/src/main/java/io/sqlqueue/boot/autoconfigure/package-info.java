/**
 * Auto-configuration for sqlqueue, and its properties under {@code sqlqueue.*}
 * ({@link io.sqlqueue.boot.autoconfigure.SqlQueueProperties}).
 */
@NullMarked
package io.sqlqueue.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
