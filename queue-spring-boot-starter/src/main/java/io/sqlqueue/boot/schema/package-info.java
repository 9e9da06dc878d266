/**
 * The queue's schema migration as a Spring Boot database initializer.
 */
@NullMarked
package io.sqlqueue.boot.schema;

import org.jspecify.annotations.NullMarked;
