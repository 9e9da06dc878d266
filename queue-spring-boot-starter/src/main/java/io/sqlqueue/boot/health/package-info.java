/**
 * Health indicator of sqlqueue.
 */
@NullMarked
package io.sqlqueue.boot.health;

import org.jspecify.annotations.NullMarked;
