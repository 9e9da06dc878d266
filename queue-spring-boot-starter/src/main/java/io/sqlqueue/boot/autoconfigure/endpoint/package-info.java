/**
 * Auto-configuration of sqlqueue's Actuator endpoint.
 */
@NullMarked
package io.sqlqueue.boot.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
