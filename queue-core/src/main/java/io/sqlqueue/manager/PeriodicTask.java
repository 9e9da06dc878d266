package io.sqlqueue.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;

/**
 * The shape every background loop of the queue shares: {@code start} and {@code stop} only
 * schedule a bounded pass at a fixed delay; the pass itself ({@link #runPass()}) never
 * throws. Starting or stopping twice, or stopping before starting, is harmless; tests call
 * the pass directly instead of waiting for the schedule.
 */
public abstract class PeriodicTask implements SmartLifecycle {

	private final TaskScheduler scheduler;

	private final Duration interval;

	private @Nullable ScheduledFuture<?> task;

	protected PeriodicTask(TaskScheduler scheduler, Duration interval, String what) {
		if (interval.isNegative() || interval.isZero()) {
			throw new IllegalArgumentException("The interval of the " + what + " must be positive");
		}
		this.scheduler = scheduler;
		this.interval = interval;
	}

	@Override
	public synchronized void start() {
		if (this.task == null && hasWork()) {
			this.task = this.scheduler.scheduleWithFixedDelay(this::runPass, Instant.now().plus(firstDelay()),
					this.interval);
		}
	}

	@Override
	public synchronized void stop() {
		if (this.task != null) {
			this.task.cancel(false);
			this.task = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.task != null;
	}

	protected Duration interval() {
		return this.interval;
	}

	/** Whether there is anything to schedule at all. */
	protected boolean hasWork() {
		return true;
	}

	/** How long after start the first pass runs: one interval, unless a task needs it sooner. */
	protected Duration firstDelay() {
		return this.interval;
	}

	/** One scheduled pass; it logs its failures instead of throwing them. */
	protected abstract void runPass();

}
