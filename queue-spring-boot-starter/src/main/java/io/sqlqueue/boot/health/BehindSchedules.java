package io.sqlqueue.boot.health;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sqlqueue.schedule.ScheduleRecord;
import io.sqlqueue.schedule.Schedules;
import io.sqlqueue.store.ScheduleStore;

/**
 * The schedules that were more than their own period behind (by the database's clock)
 * when last read: {@link #refresh()} reads them, on the same pass as the queue's counts,
 * so the health indicator never queries.
 */
public class BehindSchedules {

	private static final Logger logger = LoggerFactory.getLogger(BehindSchedules.class);

	private final Schedules schedules;

	private final ScheduleStore store;

	private volatile Map<String, String> behind = Map.of();

	public BehindSchedules(Schedules schedules, ScheduleStore store) {
		this.schedules = schedules;
		this.store = store;
	}

	/** Reads the schedules again; a failed read keeps the last answer (the counts' read reports the database). */
	public void refresh() {
		try {
			Instant now = this.store.now();
			Map<String, String> found = new TreeMap<>();
			for (ScheduleRecord schedule : this.schedules.list()) {
				if (schedule.isBehind(now)) {
					found.put(schedule.name(), Duration.between(schedule.nextRunAt(), now).toString());
				}
			}
			this.behind = Map.copyOf(found);
		}
		catch (RuntimeException ex) {
			logger.debug("sqlqueue could not read its schedules for health", ex);
		}
	}

	/** How long each schedule that is behind has been due (ISO-8601), by name. */
	public Map<String, String> latest() {
		return this.behind;
	}

}
