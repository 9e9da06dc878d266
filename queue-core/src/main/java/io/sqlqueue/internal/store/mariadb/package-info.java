/**
 * MariaDB's and MySQL's dialect.
 */
@NullMarked
package io.sqlqueue.internal.store.mariadb;

import org.jspecify.annotations.NullMarked;
