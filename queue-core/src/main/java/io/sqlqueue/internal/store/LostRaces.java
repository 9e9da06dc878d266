package io.sqlqueue.internal.store;

import java.sql.SQLException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A transaction of the queue's own that another one won: on a MariaDB Galera cluster where
 * every node takes writes, two nodes' transactions that wrote the same row (a job two claims
 * picked, a queue's flow row, a unique key) are ordered cluster-wide at commit, and the later
 * one fails certification with error 1213, SQLSTATE 40001 ("Deadlock found"), at its
 * {@code COMMIT}, or at any statement when the winner's write reaches a row it holds (a
 * brute-force abort). InnoDB's own deadlocks on one server, and PostgreSQL's serialization
 * failures, are the same answer: nothing of the transaction was written, and the same
 * transaction, run again on what is committed now, is the right thing to do. So it is tried
 * again at once, a few times ({@link #MAX_TRIES}), each loss counted ({@link #retried()})
 * and logged at DEBUG: a lost race is how a multi-primary cluster works, not an outage.
 */
public final class LostRaces {

	/** Tries of one transaction at most, the first included; races are lost in milliseconds. */
	static final int MAX_TRIES = 5;

	/** Error 1213 (MariaDB/MySQL: a deadlock or, on Galera, a failed certification). */
	private static final int DEADLOCK = 1213;

	/** SQLSTATE class 40, serialization failure: what 1213 reports, and PostgreSQL's too. */
	private static final String SERIALIZATION_FAILURE = "40001";

	private static final Logger logger = LoggerFactory.getLogger(LostRaces.class);

	/** Every lost race of this JVM's queue transactions: the metric sqlqueue.database.races.lost. */
	private static final LongAdder lost = new LongAdder();

	private LostRaces() {
	}

	/** Whether {@code ex} (or one of its causes) says another transaction won: 1213 or 40001. */
	public static boolean isLostRace(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof SQLException sql
					&& (sql.getErrorCode() == DEADLOCK || SERIALIZATION_FAILURE.equals(sql.getSQLState()))) {
				return true;
			}
		}
		return false;
	}

	/** How many transactions of this JVM's queues lost a race and were tried again (or gave up). */
	public static long retried() {
		return lost.sum();
	}

	/**
	 * Runs {@code transaction}, a whole transaction of the queue's own (never a part of a
	 * caller's, which a lost race has rolled back), again at once each time it loses a race,
	 * {@link #MAX_TRIES} times at most; the last loss is thrown.
	 */
	static <T> T tryAgainWhenLost(Supplier<T> transaction) {
		for (int tries = 1;; tries++) {
			try {
				return transaction.get();
			}
			catch (RuntimeException ex) {
				if (!isLostRace(ex)) {
					throw ex;
				}
				lost.increment();
				if (tries >= MAX_TRIES) {
					logger.debug("sqlqueue lost {} races in a row to other transactions; giving up this time", tries,
							ex);
					throw ex;
				}
				logger.debug("sqlqueue lost a race to another transaction (try {} of {}); trying again: {}", tries,
						MAX_TRIES, ex.getMessage());
			}
		}
	}

}
