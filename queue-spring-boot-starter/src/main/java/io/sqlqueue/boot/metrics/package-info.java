/**
 * Micrometer meters of sqlqueue.
 */
@NullMarked
package io.sqlqueue.boot.metrics;

import org.jspecify.annotations.NullMarked;
