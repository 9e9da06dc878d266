/**
 * Not API; may change in any release. Awaiting jobs: the {@link io.sqlqueue.internal.await.JobAwaiter} behind
 * {@link io.sqlqueue.JobQueue#await} and {@link io.sqlqueue.JobQueue#whenFinished}.
 */
@NullMarked
package io.sqlqueue.internal.await;

import org.jspecify.annotations.NullMarked;
