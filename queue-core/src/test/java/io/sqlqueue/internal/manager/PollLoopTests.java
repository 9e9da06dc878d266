package io.sqlqueue.internal.manager;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class PollLoopTests {

	private final ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();

	PollLoopTests() {
		this.scheduler.setPoolSize(2);
		this.scheduler.initialize();
	}

	@AfterEach
	void shutDown() {
		this.scheduler.shutdown();
	}

	@Test
	void stopWaitsForAStepUnderWayAndNoStepRunsAfterIt() throws Exception {
		CountDownLatch inStep = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger steps = new AtomicInteger();
		PollLoop loop = new PollLoop(this.scheduler, () -> {
			steps.incrementAndGet();
			inStep.countDown();
			try {
				release.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return Duration.ZERO;
		});
		loop.start();
		assertThat(inStep.await(10, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Void> stopped = CompletableFuture.runAsync(loop::stop);
		Thread.sleep(200);
		assertThat(stopped).isNotDone();
		release.countDown();
		stopped.get(10, TimeUnit.SECONDS);
		int afterStop = steps.get();
		Thread.sleep(200);
		assertThat(steps).hasValue(afterStop);
	}

	@Test
	void wakeUpBringsTheNextStepForward() {
		AtomicInteger steps = new AtomicInteger();
		PollLoop loop = new PollLoop(this.scheduler, () -> {
			steps.incrementAndGet();
			return Duration.ofHours(1);
		});
		loop.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> steps.get() == 1);
		loop.wakeUp();
		await().atMost(Duration.ofSeconds(10)).until(() -> steps.get() == 2);
		loop.stop();
		loop.wakeUp();
		loop.stop();
		assertThat(steps).hasValue(2);
	}

}
