package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * A loop on a {@link TaskScheduler}, or on a thread of its own: runs a step, then schedules
 * the next after the delay the step returns. {@link #wakeUp()} brings the next step forward
 * to now; a wake-up during a step makes the next one start at once. Starting or stopping
 * twice is harmless.
 * <p>
 * Each step is scheduled once, not at a fixed delay, so that a scheduler running each task
 * on a new (virtual) thread runs the steps of different loops side by side (Spring's
 * {@code SimpleAsyncTaskScheduler} runs every fixed-delay task on its one scheduler thread).
 */
final class PollLoop {

	private final @Nullable TaskScheduler shared;

	/** The name of the loop's own thread, or {@code null} when it runs on a shared scheduler. */
	private final @Nullable String threadName;

	private @Nullable ThreadPoolTaskScheduler own;

	private final Supplier<Duration> step;

	private final Object lock = new Object();

	private boolean active;

	private boolean stepping;

	private boolean wokenDuringStep;

	private @Nullable ScheduledFuture<?> next;

	PollLoop(TaskScheduler scheduler, Supplier<Duration> step) {
		this(scheduler, null, step);
	}

	private PollLoop(@Nullable TaskScheduler shared, @Nullable String threadName, Supplier<Duration> step) {
		this.shared = shared;
		this.threadName = threadName;
		this.step = step;
	}

	/**
	 * A loop on a thread of its own, named {@code threadName}, made at start and ended at
	 * stop: no other task can delay its steps, and its steps delay no other task.
	 */
	static PollLoop onOwnThread(String threadName, Supplier<Duration> step) {
		return new PollLoop(null, threadName, step);
	}

	void start() {
		synchronized (this.lock) {
			if (this.active) {
				return;
			}
			if (this.threadName != null) {
				this.own = ownThread(this.threadName);
				this.own.initialize();
			}
			this.active = true;
			this.next = scheduler().schedule(this::run, Instant.now());
		}
	}

	/** A scheduler of one daemon thread named {@code name}, not initialized yet. */
	static ThreadPoolTaskScheduler ownThread(String name) {
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setThreadFactory((task) -> {
			Thread thread = new Thread(task, name);
			thread.setDaemon(true);
			return thread;
		});
		return scheduler;
	}

	private TaskScheduler scheduler() {
		TaskScheduler scheduler = (this.shared != null) ? this.shared : this.own;
		if (scheduler == null) {
			throw new IllegalStateException("Loop " + this.threadName + " is not started");
		}
		return scheduler;
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
					break;
				}
			}
			if (this.own != null) {
				// A step still under way (stop was interrupted) ends on its own; none follows it.
				this.own.shutdown();
				this.own = null;
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
				this.next = scheduler().schedule(this::run, Instant.now());
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
					this.next = scheduler().schedule(this::run, at);
				}
			}
		}
	}

}
