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

	/** The wait before the first new try of a write that failed for a transient reason. */
	static final Duration FIRST_RETRY_WAIT = Duration.ofMillis(500);

	/** The longest wait between two tries: a database back from a failover is written to within it. */
	static final Duration MAX_RETRY_WAIT = Duration.ofSeconds(5);

	/**
	 * The wait before the next try of a write of an attempt's outcome that failed
	 * {@code failures} times for a transient reason: 0.5, 1, 2, 4 s, then 5 s each. A failover
	 * takes from seconds to most of a minute (an HA tool's detection and promotion), so the
	 * tries go on for as long as the attempt's lease surely holds, not a fixed count (see
	 * {@link #worthTryingAgain}).
	 */
	static Duration retryWait(int failures) {
		long millis = FIRST_RETRY_WAIT.toMillis() << Math.min(failures, 10);
		return Duration.ofMillis(Math.min(millis, MAX_RETRY_WAIT.toMillis()));
	}

	/**
	 * Whether an attempt's outcome is worth writing again after {@code wait}: while its lease
	 * surely holds until then, the row is still this attempt's, and a write that lands saves
	 * the job from running again. Past that, the reaper may have handed the job on, and the
	 * (fenced) write could only find the lease lost.
	 */
	static boolean worthTryingAgain(Attempt attempt, Duration wait) {
		return attempt.leaseHoldsFor(wait);
	}

	private DatabaseErrors() {
	}

	static boolean isTransient(RuntimeException ex) {
		return ex instanceof TransientDataAccessException || ex instanceof RecoverableDataAccessException
				|| ex instanceof DataAccessResourceFailureException || ex instanceof TransactionException;
	}

}
