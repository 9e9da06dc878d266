/**
 * Actuator endpoint of sqlqueue.
 */
@NullMarked
package io.sqlqueue.boot.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
