package io.sqlqueue.boot.health;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sqlqueue.internal.store.ScheduleStore;
import io.sqlqueue.schedule.ScheduleRecord;
import io.sqlqueue.schedule.Schedules;

/**
 * The schedules that were more than their own period behind (by the database's clock)
 * when last read: {@link #refresh()} reads them, on the same pass as the queue's counts,
 * so the health indicator never queries.
 * <p>
 * A schedule counts only once this instance's schedule firer has had a pass: right after
 * a restart every schedule that came due while the application was down is overdue, and
 * would read as behind (a short one for sure) although nothing has had a chance to fire it
 * yet. Once the firer has passed, what is still behind is behind: no instance fired it.
 * <p>
 * The same read finds the <em>orphaned</em> schedules: declared from the code (properties or
 * {@code @Recurring}) and declared by no live instance for a while (docs/recurring-jobs.md),
 * so no instance fires them until they are declared again or deleted. Those count at once:
 * being orphaned is stored, not a moment's lag.
 */
public class BehindSchedules {

	private static final Logger logger = LoggerFactory.getLogger(BehindSchedules.class);

	private final Schedules schedules;

	private final ScheduleStore store;

	private final BooleanSupplier firerHasPassed;

	private volatile Map<String, String> behind = Map.of();

	private volatile Map<String, String> orphaned = Map.of();

	/** Schedules count as behind at once: for an instance where no firer runs. */
	public BehindSchedules(Schedules schedules, ScheduleStore store) {
		this(schedules, store, () -> true);
	}

	/**
	 * @param firerHasPassed whether this instance's firer has had a pass (see
	 * {@link io.sqlqueue.internal.maintenance.ScheduleFirer#hasPassed()}); until then none counts as behind
	 */
	public BehindSchedules(Schedules schedules, ScheduleStore store, BooleanSupplier firerHasPassed) {
		this.schedules = schedules;
		this.store = store;
		this.firerHasPassed = firerHasPassed;
	}

	/** Reads the schedules again; a failed read keeps the last answer (the counts' read reports the database). */
	public void refresh() {
		// Asked before the read: a pass that ended before it had its chance at what the read sees.
		boolean passed = this.firerHasPassed.getAsBoolean();
		try {
			Instant now = this.store.now();
			Map<String, String> found = new TreeMap<>();
			Map<String, String> unfired = new TreeMap<>();
			for (ScheduleRecord schedule : this.schedules.list()) {
				if (passed && schedule.isBehind(now)) {
					found.put(schedule.name(), Duration.between(schedule.nextRunAt(), now).toString());
				}
				if (schedule.orphaned() && !schedule.paused()) {
					unfired.put(schedule.name(), schedule.source().name());
				}
			}
			this.behind = Map.copyOf(found);
			this.orphaned = Map.copyOf(unfired);
		}
		catch (RuntimeException ex) {
			logger.debug("sqlqueue could not read its schedules for health", ex);
		}
	}

	/**
	 * The orphaned schedules, not paused, by name, each with where it was declared
	 * ({@code ANNOTATION} or {@code PROPERTIES}): no instance fires them.
	 */
	public Map<String, String> orphaned() {
		return this.orphaned;
	}

	/** How long each schedule that is behind has been due (ISO-8601), by name. */
	public Map<String, String> latest() {
		return this.behind;
	}

}
