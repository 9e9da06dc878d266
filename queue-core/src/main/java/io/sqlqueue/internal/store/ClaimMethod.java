package io.sqlqueue.internal.store;

/**
 * How a batch of due jobs becomes ours, atomically (DESIGN.md, "Claiming, per database").
 */
public enum ClaimMethod {

	/** One statement: lock the candidates with {@code SKIP LOCKED} and update them, {@code RETURNING} the rows. */
	UPDATE_RETURNING,

	/** In one short transaction: {@code SELECT … FOR UPDATE SKIP LOCKED}, then {@code UPDATE … WHERE id IN (…)}. */
	LOCK_THEN_UPDATE,

	/**
	 * Optimistic, for any database: read candidates without locks, then
	 * {@code UPDATE … WHERE id = ? AND status = 'QUEUED' AND version = ?} each; one row
	 * updated means the job is ours, none means another worker was first.
	 */
	COMPARE_AND_SET

}
