package io.sqlqueue.store;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcOperations;

/**
 * H2 2.x, the embedded default: claims with {@code SELECT … FOR UPDATE SKIP LOCKED} and an
 * {@code UPDATE} in one short transaction. Payloads are stored as text.
 */
public final class H2Dialect extends Dialect {

	@Override
	public String name() {
		return "h2";
	}

	@Override
	public String now() {
		return "CURRENT_TIMESTAMP";
	}

	@Override
	public String nowPlusMillis() {
		return "DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)";
	}

	@Override
	public String timestampParameter() {
		return "CAST(? AS TIMESTAMP WITH TIME ZONE)";
	}

	/** Without partial indexes, the index is on a generated column: the deadline while queued, else null. */
	@Override
	public String deadlinePassed() {
		return "queued_deadline <= " + now();
	}

	/** H2's bound is the session's: set back to what it was. */
	@Override
	public @Nullable Runnable boundLockWaits(JdbcOperations jdbc, Duration bound) {
		Long previous = jdbc.queryForObject("SELECT LOCK_TIMEOUT()", Long.class);
		jdbc.execute("SET LOCK_TIMEOUT " + bound.toMillis());
		return () -> jdbc.execute("SET LOCK_TIMEOUT " + previous);
	}

	@Override
	public ClaimMethod claimMethod() {
		return ClaimMethod.LOCK_THEN_UPDATE;
	}

}
