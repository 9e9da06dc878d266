/**
 * Not API; may change in any release. The queue's own schema migrations.
 */
@NullMarked
package io.sqlqueue.internal.schema;

import org.jspecify.annotations.NullMarked;
