/**
 * Auto-configuration of sqlqueue's health indicator, and its properties under
 * {@code management.health.sqlqueue.*}.
 */
@NullMarked
package io.sqlqueue.boot.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
