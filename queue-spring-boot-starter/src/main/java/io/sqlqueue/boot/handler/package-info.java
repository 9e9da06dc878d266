/**
 * Finds {@link io.sqlqueue.JobHandler @JobHandler} methods on beans and registers them.
 */
@NullMarked
package io.sqlqueue.boot.handler;

import org.jspecify.annotations.NullMarked;
