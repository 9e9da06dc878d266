/**
 * Flow control: limits on how many jobs of a queue, or of one concurrency key in a queue,
 * run at once and start per period, across every instance, enforced by the claim
 * (docs/flow-control.md). {@link io.sqlqueue.flow.FlowControl} changes and reads them at
 * runtime; the claim that enforces them is internal.
 */
@NullMarked
package io.sqlqueue.flow;

import org.jspecify.annotations.NullMarked;
