/**
 * Handlers: their definitions and registry, method invocation and retry policy.
 */
@NullMarked
package io.sqlqueue.handler;

import org.jspecify.annotations.NullMarked;
