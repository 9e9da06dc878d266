/**
 * Auto-configuration of sqlqueue's Micrometer meters.
 */
@NullMarked
package io.sqlqueue.boot.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
