package io.sqlqueue.internal.store;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** Runs what must wait for the current transaction to commit: at once when there is none. */
public final class AfterCommit {

	private AfterCommit() {
	}

	/** Runs {@code action} once the current transaction commits (never if it rolls back), or now without one. */
	public static void run(Runnable action) {
		if (TransactionSynchronizationManager.isSynchronizationActive()) {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void afterCommit() {
					action.run();
				}
			});
		}
		else {
			action.run();
		}
	}

}
