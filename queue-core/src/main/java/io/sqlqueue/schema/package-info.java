/**
 * The queue's own schema migrations.
 */
@NullMarked
package io.sqlqueue.schema;

import org.jspecify.annotations.NullMarked;
