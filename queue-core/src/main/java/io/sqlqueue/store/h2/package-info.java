/**
 * H2's dialect.
 */
@NullMarked
package io.sqlqueue.store.h2;

import org.jspecify.annotations.NullMarked;
