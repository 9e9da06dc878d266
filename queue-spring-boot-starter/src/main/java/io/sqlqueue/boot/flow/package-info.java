/**
 * Flow control in Spring Boot: the limits of {@code sqlqueue.queues.*} and of
 * {@code @JobHandler(concurrencyPerKey, ratePerKey)}, declared at start-up.
 */
@NullMarked
package io.sqlqueue.boot.flow;

import org.jspecify.annotations.NullMarked;
