package io.sqlqueue.schedule;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.manager.PeriodicTask;

/**
 * Fires due schedules every {@code interval} (a second by default), on every instance
 * that runs a Manager; safe on all of them at once (see {@link Schedules}).
 */
public class ScheduleFirer extends PeriodicTask {

	private static final Logger logger = LoggerFactory.getLogger(ScheduleFirer.class);

	private final Schedules schedules;

	public ScheduleFirer(Schedules schedules, TaskScheduler scheduler, Duration interval) {
		super(scheduler, interval, "schedule firer");
		this.schedules = schedules;
	}

	@Override
	protected void runPass() {
		try {
			this.schedules.fireDue();
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue could not fire due schedules; trying again in {}", interval(), ex);
		}
	}

}
