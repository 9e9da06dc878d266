package io.sqlqueue.internal.store;

import java.util.Set;

/**
 * What one instance hears of the others through the database ({@link io.sqlqueue.internal.store.postgresql.PostgresNotifications}):
 * new work, jobs that reached a final state, and cancels asked for running jobs.
 */
public interface QueueEvents {

	/** These queues got jobs (an enqueue committed). */
	default void newWork(Set<String> queues) {
	}

	/** These jobs reached a final state. */
	default void finished(Set<Long> jobIds) {
	}

	/** The cancel of these running jobs was asked for. */
	default void cancelRequested(Set<Long> jobIds) {
	}

}
