/**
 * H2's dialect.
 */
@NullMarked
package io.sqlqueue.internal.store.h2;

import org.jspecify.annotations.NullMarked;
