package io.sqlqueue.internal.maintenance;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.admin.TableHealth;
import io.sqlqueue.internal.store.QueueStore;

/**
 * Reads the health of the queue's own tables ({@link TableHealth}) on a schedule and keeps the
 * last reading, with its time, for the gauges, the health indicator, the endpoint and the
 * dashboard: looking never queries the database, and however many look, the database is read
 * once per interval by each instance.
 */
public class TableHealthMonitor extends PeriodicTask {

	private static final Logger logger = LoggerFactory.getLogger(TableHealthMonitor.class);

	private final QueueStore store;

	private volatile TableHealth latest;

	public TableHealthMonitor(QueueStore store, TaskScheduler scheduler, Duration interval) {
		super(scheduler, interval, "table health reader");
		this.store = store;
		this.latest = TableHealth.notRead(store.dialect().name());
	}

	/** A reading is wanted from the start: the first runs at once. */
	@Override
	protected Duration firstDelay() {
		return Duration.ZERO;
	}

	@Override
	protected void runPass() {
		refresh();
	}

	/**
	 * Reads the tables' health now. A failure keeps the reading before, marked with why the
	 * last one failed.
	 */
	public TableHealth refresh() {
		try {
			this.latest = this.store.tableHealth();
		}
		catch (RuntimeException ex) {
			logger.debug("sqlqueue could not read the health of its tables", ex);
			this.latest = this.latest.failed(String.valueOf(ex.getMessage()));
		}
		return this.latest;
	}

	/** The tables' health as last read. */
	public TableHealth latest() {
		return this.latest;
	}

}
