package io.sqlqueue.internal.manager;

/**
 * When this instance last found the database away: a write or a claim that failed for a
 * transient reason (a lost connection, a failover, a restart). Claims commit without waiting
 * for a standby ({@code synchronous_commit} off on PostgreSQL), so a claim that returned before
 * the primary failed over may not exist on the new one, where its jobs are queued again and
 * another instance may run them: such an attempt's lease is in doubt until a statement sent
 * after the outage began confirms it (a heartbeat, or the worker's own check before it starts
 * the job, see {@code Workers}). Shared by the parts of one Manager that talk to the database.
 */
final class LeaseDoubt {

	/** {@link System#nanoTime()} when the database was last found away; meaningful once {@link #found} is set. */
	private volatile long since;

	private volatile boolean found;

	/** A statement failed for a transient reason: the leases claimed before now are in doubt. */
	void databaseAway() {
		this.since = System.nanoTime();
		this.found = true;
	}

	/** Whether no statement sent since the database was last found away confirmed this attempt's lease. */
	boolean doubts(Attempt attempt) {
		return this.found && attempt.confirmedSentNanos() - this.since <= 0;
	}

}
