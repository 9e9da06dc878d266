/**
 * Auto-configuration of the sqlqueue dashboard.
 */
@NullMarked
package io.sqlqueue.dashboard.autoconfigure;

import org.jspecify.annotations.NullMarked;
