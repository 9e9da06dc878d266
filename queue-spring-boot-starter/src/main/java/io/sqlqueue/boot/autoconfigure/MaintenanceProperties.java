package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;

/**
 * How often the periodic loops run where the Manager runs, under
 * {@code sqlqueue.maintenance.*}: one group for every loop's interval, as the loops sit
 * together in one maintenance package. What the loops keep or reclaim is set elsewhere
 * ({@code sqlqueue.retention.*}, {@code sqlqueue.retry.max-crashes}); the Manager's own
 * heartbeat belongs to its lease ({@code sqlqueue.manager.heartbeat-interval}).
 */
public class MaintenanceProperties {

	/**
	 * How often expired leases are looked for and their jobs re-queued; after a pass that
	 * took long, ten times as long as it took (ten intervals at most).
	 */
	private Duration reaperInterval = Duration.ofSeconds(15);

	/**
	 * How often finished jobs past their retention are deleted, in batches of 1000.
	 */
	private Duration prunerInterval = Duration.ofMinutes(10);

	/**
	 * How often the queue vacuums its tables itself where the database would not (PostgreSQL
	 * with autovacuum off); where autovacuum runs, the queue leaves it alone.
	 */
	private Duration vacuumInterval = Duration.ofMinutes(1);

	/**
	 * How often the jobs per queue and state are counted for the gauges and the health
	 * indicator: once per interval for the whole cluster, by the instance whose turn it is,
	 * the others reading its counts; after a count that took long, once per ten times as long
	 * as it took (ten intervals at most).
	 */
	private Duration statsInterval = Duration.ofSeconds(30);

	/**
	 * How often the health of the queue's tables is read (their size and dead rows, and what
	 * holds the database's horizon back) for the gauges, the health indicator, the endpoint and
	 * the dashboard: catalog reads only.
	 */
	private Duration tableHealthInterval = Duration.ofMinutes(1);

	/**
	 * How often due schedules are looked for and fired.
	 */
	private Duration scheduleInterval = Duration.ofSeconds(1);

	public Duration getReaperInterval() {
		return this.reaperInterval;
	}

	public void setReaperInterval(Duration reaperInterval) {
		this.reaperInterval = reaperInterval;
	}

	public Duration getPrunerInterval() {
		return this.prunerInterval;
	}

	public void setPrunerInterval(Duration prunerInterval) {
		this.prunerInterval = prunerInterval;
	}

	public Duration getVacuumInterval() {
		return this.vacuumInterval;
	}

	public void setVacuumInterval(Duration vacuumInterval) {
		this.vacuumInterval = vacuumInterval;
	}

	public Duration getStatsInterval() {
		return this.statsInterval;
	}

	public void setStatsInterval(Duration statsInterval) {
		this.statsInterval = statsInterval;
	}

	public Duration getTableHealthInterval() {
		return this.tableHealthInterval;
	}

	public void setTableHealthInterval(Duration tableHealthInterval) {
		this.tableHealthInterval = tableHealthInterval;
	}

	public Duration getScheduleInterval() {
		return this.scheduleInterval;
	}

	public void setScheduleInterval(Duration scheduleInterval) {
		this.scheduleInterval = scheduleInterval;
	}

}
