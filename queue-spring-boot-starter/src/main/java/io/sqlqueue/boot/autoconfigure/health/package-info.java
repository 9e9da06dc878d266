/**
 * Auto-configuration of sqlqueue's health indicator.
 */
@NullMarked
package io.sqlqueue.boot.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
