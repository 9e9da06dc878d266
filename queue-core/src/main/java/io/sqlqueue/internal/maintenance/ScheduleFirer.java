package io.sqlqueue.internal.maintenance;

import java.time.Duration;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

import io.sqlqueue.schedule.FiredTick;
import io.sqlqueue.schedule.Schedules;

/**
 * Fires due schedules every {@code interval} (a second by default), on every instance
 * that runs a Manager; safe on all of them at once (see {@link Schedules}).
 */
public class ScheduleFirer extends PeriodicTask {

	private static final Logger logger = LoggerFactory.getLogger(ScheduleFirer.class);

	private final Schedules schedules;

	private volatile boolean autoStartup = true;

	private volatile boolean passed;

	public ScheduleFirer(Schedules schedules, TaskScheduler scheduler, Duration interval) {
		super(scheduler, interval, "schedule firer");
		this.schedules = schedules;
	}

	/**
	 * Whether the context starts it (default true); the test kit turns it off, as it does the
	 * Manager's, so that no tick enqueues a job a test did not ask for.
	 */
	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	@Override
	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	@Override
	protected void runPass() {
		runOnce();
	}

	/** One pass, as the schedule runs it: fires the due schedules; returns what it did (none when it failed). */
	public List<FiredTick> runOnce() {
		try {
			return this.schedules.fireDue();
		}
		catch (RuntimeException ex) {
			logger.warn("sqlqueue could not fire due schedules; trying again in {}", interval(), ex);
			return List.of();
		}
		finally {
			this.passed = true;
		}
	}

	/**
	 * Whether a pass has ended since this firer was made (with the application): until then a
	 * schedule that is overdue after a restart is not behind, only not fired yet.
	 */
	public boolean hasPassed() {
		return this.passed;
	}

}
