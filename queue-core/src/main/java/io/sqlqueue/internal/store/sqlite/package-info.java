/**
 * SQLite's dialect.
 */
@NullMarked
package io.sqlqueue.internal.store.sqlite;

import org.jspecify.annotations.NullMarked;
