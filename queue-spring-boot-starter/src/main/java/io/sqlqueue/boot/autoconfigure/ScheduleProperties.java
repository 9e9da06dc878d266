package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.schedule.MisfirePolicy;
import io.sqlqueue.schedule.OverlapPolicy;

/**
 * One recurring job: either 'cron' (with 'zone') or 'every'.
 */
public class ScheduleProperties {

	/**
	 * Cron expression of the ticks, six fields with seconds first, such as '0 0 2 * * *'.
	 */
	private @Nullable String cron;

	/**
	 * Time zone the cron expression is read in.
	 */
	private String zone = "UTC";

	/**
	 * Fixed interval between ticks, at least 1s, instead of a cron expression.
	 */
	private @Nullable Duration every;

	/**
	 * Name of the handler each tick's job runs.
	 */
	private @Nullable String handler;

	/**
	 * Payload of each tick's job, as JSON text.
	 */
	private String payload = "null";

	/**
	 * Queue of each tick's job. When not set, the handler's own.
	 */
	private @Nullable String queue;

	/**
	 * Whether the schedule is declared. A disabled one is not declared at all: if it was
	 * stored before, it stops firing and shows as orphaned.
	 */
	private boolean enabled = true;

	/**
	 * What to do with ticks missed while no instance fired them.
	 */
	private MisfirePolicy misfire = MisfirePolicy.FIRE_ONCE;

	/**
	 * What to do at a tick while the previous tick's job is still queued or running.
	 */
	private OverlapPolicy overlap = OverlapPolicy.SKIP;

	public @Nullable String getCron() {
		return this.cron;
	}

	public void setCron(@Nullable String cron) {
		this.cron = cron;
	}

	public String getZone() {
		return this.zone;
	}

	public void setZone(String zone) {
		this.zone = zone;
	}

	public @Nullable Duration getEvery() {
		return this.every;
	}

	public void setEvery(@Nullable Duration every) {
		this.every = every;
	}

	public @Nullable String getHandler() {
		return this.handler;
	}

	public void setHandler(@Nullable String handler) {
		this.handler = handler;
	}

	public String getPayload() {
		return this.payload;
	}

	public void setPayload(String payload) {
		this.payload = payload;
	}

	public @Nullable String getQueue() {
		return this.queue;
	}

	public void setQueue(@Nullable String queue) {
		this.queue = queue;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public MisfirePolicy getMisfire() {
		return this.misfire;
	}

	public void setMisfire(MisfirePolicy misfire) {
		this.misfire = misfire;
	}

	public OverlapPolicy getOverlap() {
		return this.overlap;
	}

	public void setOverlap(OverlapPolicy overlap) {
		this.overlap = overlap;
	}

}
