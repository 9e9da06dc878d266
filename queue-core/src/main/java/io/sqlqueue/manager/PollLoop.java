package io.sqlqueue.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;

/**
 * A loop on a {@link TaskScheduler}: runs a step, then schedules the next after the delay
 * the step returns. {@link #wakeUp()} brings the next step forward to now; a wake-up
 * during a step makes the next one start at once. Starting or stopping twice is harmless.
 */
final class PollLoop {

	private final TaskScheduler scheduler;

	private final Supplier<Duration> step;

	private final Object lock = new Object();

	private boolean active;

	private boolean stepping;

	private boolean wokenDuringStep;

	private @Nullable ScheduledFuture<?> next;

	PollLoop(TaskScheduler scheduler, Supplier<Duration> step) {
		this.scheduler = scheduler;
		this.step = step;
	}

	void start() {
		synchronized (this.lock) {
			if (this.active) {
				return;
			}
			this.active = true;
			this.next = this.scheduler.schedule(this::run, Instant.now());
		}
	}

	/** Stops the loop; a step under way is waited for, so none runs once this returns. */
	void stop() {
		synchronized (this.lock) {
			this.active = false;
			if (this.next != null) {
				this.next.cancel(false);
				this.next = null;
			}
			while (this.stepping) {
				try {
					this.lock.wait();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
	}

	void wakeUp() {
		synchronized (this.lock) {
			if (!this.active) {
				return;
			}
			if (this.stepping) {
				this.wokenDuringStep = true;
			}
			else if (this.next != null && this.next.cancel(false)) {
				this.next = this.scheduler.schedule(this::run, Instant.now());
			}
		}
	}

	private void run() {
		synchronized (this.lock) {
			if (!this.active || this.stepping) {
				return;
			}
			this.stepping = true;
			this.wokenDuringStep = false;
		}
		Duration delay = Duration.ZERO;
		try {
			delay = this.step.get();
		}
		finally {
			synchronized (this.lock) {
				this.stepping = false;
				this.lock.notifyAll();
				if (this.active) {
					Instant at = this.wokenDuringStep ? Instant.now() : Instant.now().plus(delay);
					this.next = this.scheduler.schedule(this::run, at);
				}
			}
		}
	}

}
