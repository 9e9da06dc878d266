/**
 * Not API; may change in any release. Flow control's implementation:
 * {@link io.sqlqueue.internal.flow.DefaultFlowControl} over the store, and the claim of a
 * limited queue, {@link io.sqlqueue.internal.flow.FlowClaim}, which admits candidates by the
 * arithmetic of {@link io.sqlqueue.internal.flow.Admission} and runs the flow store's verbs
 * (lock the flow row, read, claim by id, write the windows). It depends on the store; the
 * store knows it only as a {@code LimitedClaim}.
 */
@NullMarked
package io.sqlqueue.internal.flow;

import org.jspecify.annotations.NullMarked;
