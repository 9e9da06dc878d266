/**
 * The test kit: {@link io.sqlqueue.testkit.SqlQueueTester} asserts what a test enqueued and
 * runs jobs on the test's thread, on the test's real database, while the Manager stays idle.
 */
@NullMarked
package io.sqlqueue.testkit;

import org.jspecify.annotations.NullMarked;
