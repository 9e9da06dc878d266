package io.sqlqueue.internal.manager;

import java.time.Duration;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.transaction.TransactionException;

/**
 * Which failed writes are worth trying again as they are: those of a database that was
 * away for a moment (failover, restart, dropped or killed connection, a commit whose answer
 * was lost). Any other failure is about the data written, and the same write would fail
 * again.
 */
final class DatabaseErrors {

	/**
	 * Waits before each new try of a write that failed for a transient reason: a failover is
	 * usually over within seconds, and leases (a minute by default) outlast these tries.
	 */
	static final Duration[] RETRY_WAITS = { Duration.ofMillis(500), Duration.ofSeconds(2), Duration.ofSeconds(5) };

	private DatabaseErrors() {
	}

	static boolean isTransient(RuntimeException ex) {
		return ex instanceof TransientDataAccessException || ex instanceof RecoverableDataAccessException
				|| ex instanceof DataAccessResourceFailureException || ex instanceof TransactionException;
	}

}
