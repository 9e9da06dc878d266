package io.sqlqueue.internal.store;

import java.util.Set;

/**
 * Told, once the transaction that settled a job's end commits, what it did beyond that end:
 * jobs that became due (a Manager claims at once instead of at its next poll), and waiting
 * jobs cancelled because a job they run after failed or was cancelled.
 */
public interface SettleListener {

	/** Jobs of these queues became due: their last dependency ended, or their batch finished. */
	default void released(Set<String> queues) {
	}

	/** A waiting job was cancelled, never run, because a job it runs after failed or was cancelled. */
	default void cancelled(String queue, String handler) {
	}

}
