/**
 * Chooses a database's dialect, by its JDBC metadata or by name; the one place that knows every dialect.
 */
@NullMarked
package io.sqlqueue.internal.store.dialect;

import org.jspecify.annotations.NullMarked;
