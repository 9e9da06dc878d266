/**
 * Flow control: limits on how many jobs of a queue, or of one concurrency key in a queue,
 * run at once and start per period, across every instance, enforced by the claim
 * (README "Flow control").
 */
@NullMarked
package io.sqlqueue.flow;

import org.jspecify.annotations.NullMarked;
