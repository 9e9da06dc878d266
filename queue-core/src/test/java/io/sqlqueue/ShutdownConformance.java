package io.sqlqueue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.SwitchableDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Stopping a Manager on every database: running jobs finish and are recorded, unstarted
 * ones go back, and a stopped Manager claims nothing.
 * {@link QueueConformanceTests} implements this.
 */
interface ShutdownConformance extends ConformanceSupport {

	@Test
	default void stopFinishesRunningJobsAndGivesBackUnstartedOnes() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		handler("slow", (payload, context) -> {
			started.countDown();
			Thread.sleep(300);
			return "done";
		});
		// One worker thread for a lane of four: three claimed jobs wait for the thread.
		Manager manager = fixture().startManager(fixture().store(),
				QueueFixture.fastSettings().defaultConcurrency(4).build(), 1);
		List<Long> ids = fixture().queue()
			.enqueueAll(List.of(Job.of("slow", 1), Job.of("slow", 2), Job.of("slow", 3), Job.of("slow", 4)));
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		await().atMost(WAIT).until(() -> fixture().count("status = 'RUNNING'") == 4);
		manager.stop();
		assertThat(fixture().count("status = 'RUNNING'")).isZero();
		assertThat(fixture().status(ids.get(0))).isEqualTo(JobStatus.SUCCEEDED);
		for (long id : ids.subList(1, 4)) {
			JobRecord job = fixture().job(id);
			assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
			assertThat(job.attempts()).isZero();
			assertThat(job.leaseToken()).isNull();
		}
		assertThat(manager.isRunning()).isFalse();
		manager.stop();
	}

	/** A completion write that failed just before stop is tried again before stop returns. */
	@Test
	default void stopWaitsForACompletionWriteToBeTriedAgain() throws Exception {
		AtomicInteger runs = new AtomicInteger();
		try (HikariDataSource pool = isolatedDatabase().newDataSource(8)) {
			SwitchableDataSource connection = cutByItsHandler(pool, runs);
			Manager manager = fixture().startInstance((s) -> s, connection);
			long id = fixture().queue().enqueue("cuts", null);
			await().atMost(WAIT).until(() -> runs.get() == 1 && connection.refusals() > 0);
			// The flush (2 ms after the handler returned) has failed; its next try waits 500 ms.
			await().pollDelay(Duration.ofMillis(100)).atMost(WAIT).until(() -> true);
			connection.restore();
			manager.stop();
			assertThat(fixture().status(id)).isEqualTo(JobStatus.SUCCEEDED);
			assertThat(fixture().job(id).attempts()).isEqualTo(1);
			assertThat(runs).hasValue(1);
			assertThat(manager.leaseLosses()).isZero();
		}
	}

	/**
	 * A stop while the database stays away waits for the completion's further tries only up
	 * to the shutdown timeout, not until the lease (30 s here) would end.
	 */
	@Test
	default void aStopDuringAnOutageWaitsForTheCompletionAtMostTheShutdownTimeout() throws Exception {
		AtomicInteger runs = new AtomicInteger();
		try (HikariDataSource pool = isolatedDatabase().newDataSource(8)) {
			SwitchableDataSource connection = cutByItsHandler(pool, runs);
			Manager manager = fixture().startInstance((s) -> s.shutdownTimeout(Duration.ofSeconds(1)), connection);
			long id = fixture().queue().enqueue("cuts", null);
			await().atMost(WAIT).until(() -> runs.get() == 1 && connection.refusals() > 0);
			long start = System.nanoTime();
			manager.stop();
			Duration stopped = Duration.ofNanos(System.nanoTime() - start);
			// Far below the lease, with room for a loaded machine: before, the stop waited ~30 s.
			assertThat(stopped).isLessThan(Duration.ofSeconds(15));
			assertThat(manager.isRunning()).isFalse();
			assertThat(fixture().status(id)).isEqualTo(JobStatus.RUNNING);
			assertThat(runs).hasValue(1);
			connection.restore();
		}
	}

	/** The instance's connections, which handler {@code cuts} cuts (counting its runs) as it returns. */
	private SwitchableDataSource cutByItsHandler(HikariDataSource pool, AtomicInteger runs) {
		SwitchableDataSource connection = new SwitchableDataSource(pool);
		handler("cuts", (payload, context) -> {
			runs.incrementAndGet();
			connection.cut();
			return "done";
		});
		return connection;
	}

	/**
	 * A handler that outlasts the shutdown timeout is interrupted while the pool is still open,
	 * and its job given back: {@code QUEUED}, no attempt spent, no crash counted, with a last
	 * error that says it was stopped. A stop is not a crash: nothing waits for its lease.
	 */
	@Test
	default void aStopPastTheShutdownTimeoutGivesTheRunningJobBack() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		AtomicBoolean interrupted = new AtomicBoolean();
		handler("long", (payload, context) -> {
			started.countDown();
			try {
				Thread.sleep(WAIT.toMillis());
			}
			catch (InterruptedException ex) {
				interrupted.set(true);
				throw ex;
			}
			return null;
		});
		Manager manager = fixture().startManager((settings) -> settings.shutdownTimeout(Duration.ofMillis(200)));
		long id = fixture().queue().enqueue("long", null);
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		manager.stop();
		assertThat(interrupted).as("the handler was interrupted").isTrue();
		JobRecord job = fixture().job(id);
		assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
		assertThat(job.attempts()).as("attempts spent").isZero();
		assertThat(job.crashes()).as("crashes counted").isZero();
		assertThat(job.leaseToken()).isNull();
		assertThat(job.lastError()).startsWith("Stopped while running");
		assertThat(fixture().count("id = " + id + " AND run_at <= " + isolatedDatabase().dialect().now()))
			.as("due at once")
			.isEqualTo(1);
	}

	/**
	 * A handler that ignores the interrupt at stop is left to its lease: its job stays
	 * {@code RUNNING} under the same token, and nothing it does after the stop is written
	 * (the application may have closed its pool by then). When the lease expires, the reaper
	 * queues the job again without counting a crash: the instance said goodbye.
	 */
	@Test
	default void aHandlerThatIgnoresTheInterruptAtStopIsLeftToItsLease() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch ended = new CountDownLatch(1);
		handler("stubborn", (payload, context) -> {
			started.countDown();
			while (true) {
				try {
					if (release.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
						break;
					}
				}
				catch (InterruptedException ex) {
					// Swallowed, as a handler that ignores interrupts does.
				}
			}
			ended.countDown();
			return "late";
		});
		Manager manager = fixture().startManager(
				(settings) -> settings.shutdownTimeout(Duration.ofMillis(200)).leaseDuration(Duration.ofSeconds(2)));
		long id = fixture().queue().enqueue("stubborn", null);
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		Long token = fixture().job(id).leaseToken();
		manager.stop();
		assertThat(fixture().status(id)).isEqualTo(JobStatus.RUNNING);
		release.countDown();
		assertThat(ended.await(30, TimeUnit.SECONDS)).isTrue();
		await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> {
			JobRecord job = fixture().job(id);
			return job.status() == JobStatus.RUNNING && token.equals(job.leaseToken()) && job.result() == null;
		});
		Reaper reaper = fixture().reaper(fixture().store());
		await().atMost(WAIT).until(() -> !reaper.runOnce().isEmpty());
		JobRecord job = fixture().job(id);
		assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
		assertThat(job.crashes()).as("crashes counted").isZero();
		assertThat(job.lastError()).startsWith("Lease expired after its instance stopped");
		assertThat(fixture().count("id = " + id + " AND status = 'QUEUED'")).isEqualTo(1);
	}

	/** A worker that dies with its instance, saying nothing, is a crash: the stop's note is no blanket pardon. */
	@Test
	default void aLeaseThatRunsOutWithoutAGoodbyeIsACrash() {
		long id = fixture().queue().enqueue("work", null);
		JobRecord claimed = fixture().store()
			.claim(new io.sqlqueue.internal.store.ClaimRequest("died", "default", List.of("work"), 1, 1))
			.get(0);
		assertThat(claimed.id()).isEqualTo(id);
		Reaper reaper = fixture().reaper(fixture().store());
		await().atMost(WAIT).until(() -> !reaper.runOnce().isEmpty());
		assertThat(fixture().job(id).crashes()).isEqualTo(1);
	}

	@Test
	default void stoppedManagerClaimsNothing() {
		handler("work", (payload, context) -> null);
		Manager manager = fixture().startManager((s) -> s);
		manager.stop();
		long id = fixture().queue().enqueue("work", null);
		manager.wakeUp(Set.of("default"));
		// Time must pass: a claim by the stopped Manager would come with no event to wait for.
		await().pollDelay(Duration.ofMillis(300)).atMost(WAIT).until(() -> true);
		assertThat(fixture().status(id)).isEqualTo(JobStatus.QUEUED);
	}

}
