package io.sqlqueue.internal.maintenance;

import java.time.Duration;
import java.time.Instant;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.admin.Staleness;
import io.sqlqueue.internal.store.ReadStore;

/**
 * Asks the read-only replica how far behind it is ({@link ReadStore#staleness()}) on a
 * schedule and keeps the last answer for the gauge, so that a scrape never queries the
 * replica. Schedules nothing where the reads have no replica.
 */
public class ReplicaLagMonitor extends PeriodicTask {

	private final ReadStore reads;

	private volatile Staleness latest;

	public ReplicaLagMonitor(ReadStore reads, TaskScheduler scheduler, Duration interval) {
		super(scheduler, interval, "replica lag reader");
		this.reads = reads;
		this.latest = reads.isReplica() ? Staleness.unknown(Instant.now(), "not asked yet")
				: Staleness.primary(Instant.now());
	}

	/** Whether there is a replica to ask. */
	public boolean isReplica() {
		return this.reads.isReplica();
	}

	@Override
	protected boolean hasWork() {
		return this.reads.isReplica();
	}

	/** An answer is wanted from the start: the first question runs at once. */
	@Override
	protected Duration firstDelay() {
		return Duration.ZERO;
	}

	@Override
	protected void runPass() {
		refresh();
	}

	/** Asks now; a replica that cannot be asked is {@link Staleness.State#UNREACHABLE}. */
	public Staleness refresh() {
		this.latest = this.reads.staleness();
		return this.latest;
	}

	/** The last answer. */
	public Staleness latest() {
		return this.latest;
	}

}
