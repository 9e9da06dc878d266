/**
 * Auto-configuration of the test kit, active wherever {@code queue-test} is on the class path.
 */
@NullMarked
package io.sqlqueue.testkit.autoconfigure;

import org.jspecify.annotations.NullMarked;
