package io.sqlqueue.internal.maintenance;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.internal.store.JobStore;

/**
 * Vacuums the queue's tables on a schedule where the database will not: on PostgreSQL with
 * autovacuum switched off. Every claim and completion leaves a dead row version (and a limited
 * claim one of its flow row and its keys' windows), and without vacuum the tables and the ready
 * index grow without end and claims slow down.
 * Where autovacuum runs, this does nothing.
 */
public class Vacuumer extends PeriodicTask {

	private static final Logger logger = LoggerFactory.getLogger(Vacuumer.class);

	private final JobStore store;

	public Vacuumer(JobStore store, TaskScheduler scheduler, Duration interval) {
		super(scheduler, interval, "vacuumer");
		this.store = store;
	}

	@Override
	protected boolean hasWork() {
		try {
			boolean needed = this.store.needsOwnVacuum();
			if (needed) {
				logger.warn("Autovacuum is off for sqlqueue's tables: the queue vacuums them itself every {}; "
						+ "turn autovacuum on to leave this to the database", interval());
			}
			return needed;
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue could not tell whether autovacuum runs for its table; not vacuuming it", ex);
			return false;
		}
	}

	/**
	 * One pass: vacuums the tables now, unless the horizon has not moved since the last
	 * pass ({@link JobStore#vacuum()}); returns whether it vacuumed.
	 */
	public boolean runOnce() {
		return this.store.vacuum();
	}

	@Override
	protected void runPass() {
		try {
			runOnce();
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue could not vacuum its table; trying again in {}", interval(), ex);
		}
	}

}
