/**
 * Not API; may change in any release. Flow control's implementation,
 * {@link io.sqlqueue.internal.flow.DefaultFlowControl}, over the store.
 */
@NullMarked
package io.sqlqueue.internal.flow;

import org.jspecify.annotations.NullMarked;
