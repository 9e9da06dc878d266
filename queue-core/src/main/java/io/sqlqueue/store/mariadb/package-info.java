/**
 * MariaDB's and MySQL's dialect.
 */
@NullMarked
package io.sqlqueue.store.mariadb;

import org.jspecify.annotations.NullMarked;
