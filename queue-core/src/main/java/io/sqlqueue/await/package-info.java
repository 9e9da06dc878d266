/**
 * Awaiting jobs: the {@link io.sqlqueue.await.JobAwaiter} behind
 * {@link io.sqlqueue.JobQueue#await} and {@link io.sqlqueue.JobQueue#whenFinished}.
 */
@NullMarked
package io.sqlqueue.await;

import org.jspecify.annotations.NullMarked;
