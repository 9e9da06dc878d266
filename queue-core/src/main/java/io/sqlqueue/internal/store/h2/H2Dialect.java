package io.sqlqueue.internal.store.h2;

import java.sql.SQLException;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcOperations;

import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.Dialect;

/**
 * H2 2.x, the embedded default: claims with {@code SELECT … FOR UPDATE SKIP LOCKED} and an
 * {@code UPDATE} in one short transaction. Payloads are stored as text.
 */
public final class H2Dialect extends Dialect {

	/** H2's {@code LOCK_TIMEOUT_1}: a row or table lock waited past {@code LOCK_TIMEOUT}. */
	private static final int LOCK_TIMEOUT = 50200;

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

	@Override
	protected boolean isLockWaitTimeout(SQLException ex) {
		return ex.getErrorCode() == LOCK_TIMEOUT;
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
