/**
 * Flow control: limits on how many jobs of a queue, or of one concurrency key in a queue,
 * run at once and start per period, across every instance, enforced by the claim
 * (README "Flow control"): {@link io.sqlqueue.internal.flow.FlowClaim} admits the jobs a claim of a
 * limited queue takes, by {@link io.sqlqueue.internal.store.Admission}, and runs the store's verbs.
 */
@NullMarked
package io.sqlqueue.flow;

import org.jspecify.annotations.NullMarked;
