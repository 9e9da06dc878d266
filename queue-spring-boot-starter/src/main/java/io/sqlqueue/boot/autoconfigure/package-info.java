/**
 * Auto-configuration for sqlqueue.
 */
@NullMarked
package io.sqlqueue.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
