package io.sqlqueue.internal.maintenance;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A loop stopped while its pass runs: the stop waits for the pass, so the application closes
 * its pool only after the pass has ended (the pass ends with its connections open, not in a
 * stack trace).
 */
class PeriodicTaskTests {

	private final ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();

	@AfterEach
	void shutdown() {
		this.scheduler.shutdown();
	}

	@Test
	void aStopWaitsForThePassUnderWay() throws InterruptedException {
		this.scheduler.initialize();
		CountDownLatch passing = new CountDownLatch(1);
		CountDownLatch stopping = new CountDownLatch(1);
		CountDownLatch passed = new CountDownLatch(1);
		AtomicBoolean closed = new AtomicBoolean();
		AtomicBoolean closedUnderThePass = new AtomicBoolean();
		PeriodicTask task = new PeriodicTask(this.scheduler, Duration.ofMillis(10), "test loop") {
			@Override
			protected void runPass() {
				passing.countDown();
				try {
					stopping.await(10, TimeUnit.SECONDS);
					// The pass's own work, still under way when the stop is asked for.
					Thread.sleep(200);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				closedUnderThePass.set(closed.get());
				passed.countDown();
			}
		};
		task.start();
		assertThat(passing.await(10, TimeUnit.SECONDS)).isTrue();
		stopping.countDown();
		task.stop();
		// What the application does once its loops have stopped: it closes the pool.
		closed.set(true);
		assertThat(passed.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(closedUnderThePass).as("the pool closed while the pass ran").isFalse();
		assertThat(task.isRunning()).isFalse();
	}

	/** A pass that does not end (a long vacuum) holds the stop for {@code STOP_WAIT} only. */
	@Test
	void aStopWaitsForAPassThatDoesNotEndOnlyUpToItsBound() throws Exception {
		this.scheduler.initialize();
		CountDownLatch passing = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		AtomicBoolean passEnded = new AtomicBoolean();
		PeriodicTask task = new PeriodicTask(this.scheduler, Duration.ofMillis(10), "test loop") {
			@Override
			protected void runPass() {
				passing.countDown();
				try {
					release.await(60, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				passEnded.set(true);
			}
		};
		task.start();
		assertThat(passing.await(10, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Void> stop = CompletableFuture.runAsync(task::stop);
		try {
			// Returns after STOP_WAIT (5 s), long before the pass would end (60 s).
			stop.get(30, TimeUnit.SECONDS);
			assertThat(passEnded).as("the pass under way when the stop returned").isFalse();
			assertThat(task.isRunning()).isFalse();
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void aPassThatStopsItsOwnLoopDoesNotWaitForItself() throws InterruptedException {
		this.scheduler.initialize();
		CountDownLatch stopped = new CountDownLatch(1);
		PeriodicTask[] task = new PeriodicTask[1];
		task[0] = new PeriodicTask(this.scheduler, Duration.ofMillis(10), "test loop") {
			@Override
			protected void runPass() {
				task[0].stop();
				stopped.countDown();
			}
		};
		task[0].start();
		assertThat(stopped.await(2, TimeUnit.SECONDS)).as("stopped from its own pass within 2 s").isTrue();
		assertThat(task[0].isRunning()).isFalse();
	}

}
