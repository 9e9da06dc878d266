package io.sqlqueue.internal.store;

import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.transaction.TransactionSystemException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LostRacesTests {

	/** What MariaDB Connector/J throws when a Galera node's commit fails certification. */
	private static final SQLException CERTIFICATION_FAILED = new SQLTransactionRollbackException(
			"Deadlock found when trying to get lock; try restarting transaction", "40001", 1213);

	@Test
	void aLostCertificationAtCommitOrAtAStatementIsALostRace() {
		assertThat(LostRaces.isLostRace(new TransactionSystemException("JDBC commit failed", CERTIFICATION_FAILED)))
			.isTrue();
		assertThat(LostRaces.isLostRace(new CannotAcquireLockException("claim", CERTIFICATION_FAILED))).isTrue();
	}

	@Test
	void aLockWaitTimeoutOrAnyOtherFailureIsNot() {
		assertThat(LostRaces.isLostRace(new CannotAcquireLockException("claim",
				new SQLException("Lock wait timeout exceeded", "HY000", 1205)))).isFalse();
		assertThat(LostRaces.isLostRace(new IllegalStateException("no"))).isFalse();
	}

	@Test
	void aLostRaceIsTriedAgainAtOnceAndCounted() {
		AtomicInteger tries = new AtomicInteger();
		long before = LostRaces.retried();
		String result = LostRaces.tryAgainWhenLost(() -> {
			if (tries.incrementAndGet() < 3) {
				throw new TransactionSystemException("JDBC commit failed", CERTIFICATION_FAILED);
			}
			return "claimed";
		});
		assertThat(result).isEqualTo("claimed");
		assertThat(tries).hasValue(3);
		assertThat(LostRaces.retried() - before).isGreaterThanOrEqualTo(2);
	}

	@Test
	void racesLostEveryTimeEndAfterTheLastTry() {
		AtomicInteger tries = new AtomicInteger();
		assertThatThrownBy(() -> LostRaces.tryAgainWhenLost(() -> {
			tries.incrementAndGet();
			throw new TransactionSystemException("JDBC commit failed", CERTIFICATION_FAILED);
		})).isInstanceOf(TransactionSystemException.class);
		assertThat(tries).hasValue(LostRaces.MAX_TRIES);
	}

	@Test
	void anyOtherFailureIsNotTriedAgain() {
		AtomicInteger tries = new AtomicInteger();
		assertThatThrownBy(() -> LostRaces.tryAgainWhenLost(() -> {
			tries.incrementAndGet();
			throw new IllegalStateException("bad input");
		})).isInstanceOf(IllegalStateException.class);
		assertThat(tries).hasValue(1);
	}

}
