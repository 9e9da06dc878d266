/**
 * Auto-configuration of sqlqueue's Actuator endpoint, and its properties under
 * {@code management.endpoint.sqlqueue.*}.
 */
@NullMarked
package io.sqlqueue.boot.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
