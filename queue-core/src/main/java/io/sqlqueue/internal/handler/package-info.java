/**
 * Not API; may change in any release. The handlers this application has
 * ({@link io.sqlqueue.internal.handler.HandlerRegistry}), how a {@code @JobHandler} method is
 * invoked, and what an enqueue for a handler it lacks does.
 */
@NullMarked
package io.sqlqueue.internal.handler;

import org.jspecify.annotations.NullMarked;
