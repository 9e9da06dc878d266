/**
 * SQLite's dialect.
 */
@NullMarked
package io.sqlqueue.store.sqlite;

import org.jspecify.annotations.NullMarked;
