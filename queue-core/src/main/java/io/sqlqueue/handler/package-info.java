/**
 * Handlers: their definitions, the invoker that runs one, the retry policy and the policy for
 * handlers this application lacks.
 */
@NullMarked
package io.sqlqueue.handler;

import org.jspecify.annotations.NullMarked;
