package io.sqlqueue.internal.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wakes of parked jobs ({@link StepStore#wake}) that failed, most often because another
 * transaction held the job's row for longer than the wake's bounded lock wait (an operator's,
 * a caller's that changed the job): tried again, on a daemon thread of their own that starts
 * when there is one to try and ends when none is left, after 1 s, then twice as long each time
 * up to every 30 s, until the wake is done or finds nothing to wake (the job woke, ran, timed
 * out or ended meanwhile), for at most an hour. A wake is one idempotent statement, so trying
 * it again is always safe. Kept in memory: an instance that stops with wakes left here leaves
 * their jobs parked until their waits time out, as one that stops between a signal's commit
 * and its wake does.
 */
final class WakeRetries {

	private static final Logger logger = LoggerFactory.getLogger(WakeRetries.class);

	static final Duration FIRST = Duration.ofSeconds(1);

	static final Duration MOST = Duration.ofSeconds(30);

	static final Duration GIVE_UP_AFTER = Duration.ofHours(1);

	/** Tries one wake: true when it is done (woke the job, or found nothing to wake); throws when it failed. */
	@FunctionalInterface
	interface Wake {

		boolean tryWake(long jobId, String name, String queue);

	}

	private final Wake wake;

	private final Object lock = new Object();

	/** The wakes to try again, by job and signal; guarded by {@link #lock}. */
	private final Map<String, Pending> pending = new LinkedHashMap<>();

	/** Whether the thread that tries them runs; guarded by {@link #lock}. */
	private boolean running;

	WakeRetries(Wake wake) {
		this.wake = wake;
	}

	/** Tries this wake again later (once per job and signal, however often it is added). */
	void add(long jobId, String name, String queue) {
		long now = System.nanoTime();
		synchronized (this.lock) {
			this.pending.putIfAbsent(jobId + "\0" + name, new Pending(jobId, name, queue, now));
			if (this.running) {
				this.lock.notifyAll();
				return;
			}
			this.running = true;
		}
		Thread thread = new Thread(this::run, "sqlqueue-wake-retries");
		thread.setDaemon(true);
		thread.start();
	}

	/** How many wakes wait to be tried again. */
	int pending() {
		synchronized (this.lock) {
			return this.pending.size();
		}
	}

	private void run() {
		try {
			while (true) {
				List<Pending> due = due();
				if (due == null) {
					return;
				}
				for (Pending each : due) {
					attempt(each);
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			synchronized (this.lock) {
				this.running = false;
			}
		}
	}

	/** Waits for the next wakes that are due; null, and no longer running, when none is left. */
	private List<Pending> due() throws InterruptedException {
		synchronized (this.lock) {
			while (true) {
				if (this.pending.isEmpty()) {
					this.running = false;
					return null;
				}
				long now = System.nanoTime();
				long next = Long.MAX_VALUE;
				List<Pending> due = new ArrayList<>();
				for (Pending each : this.pending.values()) {
					if (each.dueAt - now <= 0) {
						due.add(each);
					}
					else {
						next = Math.min(next, each.dueAt - now);
					}
				}
				if (!due.isEmpty()) {
					return due;
				}
				TimeUnit.NANOSECONDS.timedWait(this.lock, next);
			}
		}
	}

	private void attempt(Pending each) {
		boolean done;
		try {
			done = this.wake.tryWake(each.jobId, each.name, each.queue);
		}
		catch (RuntimeException ex) {
			long now = System.nanoTime();
			if (now - each.since >= GIVE_UP_AFTER.toNanos()) {
				logger.warn("Gave up waking job {} for its signal '{}' after {}: if it still waits for the signal, it "
						+ "finds it when its wait times out", each.jobId, each.name, GIVE_UP_AFTER, ex);
				done = true;
			}
			else {
				logger.debug("Could not wake job {} for its signal '{}' yet; trying again in {}", each.jobId,
						each.name, each.delay, ex);
				synchronized (this.lock) {
					each.dueAt = now + each.delay.toNanos();
					each.delay = (each.delay.compareTo(MOST.dividedBy(2)) > 0) ? MOST : each.delay.multipliedBy(2);
				}
				return;
			}
		}
		if (done) {
			synchronized (this.lock) {
				this.pending.remove(each.jobId + "\0" + each.name);
			}
		}
	}

	private static final class Pending {

		final long jobId;

		final String name;

		final String queue;

		/** When it first failed (System.nanoTime). */
		final long since;

		/** When to try next (System.nanoTime); guarded by the lock. */
		long dueAt;

		/** How long after a failure to try again; guarded by the lock. */
		Duration delay;

		Pending(long jobId, String name, String queue, long failedAt) {
			this.jobId = jobId;
			this.name = name;
			this.queue = queue;
			this.since = failedAt;
			this.dueAt = failedAt + FIRST.toNanos();
			this.delay = FIRST.multipliedBy(2);
		}

	}

}
