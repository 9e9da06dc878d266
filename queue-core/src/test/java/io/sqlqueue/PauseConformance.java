package io.sqlqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.sqlqueue.admin.AdminResult;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.Refusal;
import io.sqlqueue.admin.RefusedException;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.admin.DefaultQueueAdmin;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.test.QueueFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Pausing and resuming a queue on every database, with two instances on one database: a
 * paused queue's jobs stay {@code QUEUED} on both (those claimed ahead of a busy worker are
 * given back), a running one finishes, and a resume lets
 * both claim again; bad requests change nothing. {@link QueueConformanceTests} implements
 * this.
 */
interface PauseConformance extends ConformanceSupport {

	/** The instances' poll interval here: long enough that two of them are a fair wait. */
	Duration POLL = Duration.ofMillis(200);

	private QueueAdmin admin(Manager manager) {
		return new DefaultQueueAdmin(fixture().queue(), fixture().store(), manager, null, null);
	}

	/**
	 * A queue beside the paused one, registered before a Manager starts: the Manager claims it
	 * at each poll (with nothing due), which {@link #awaitAWholePollPassedOver} counts.
	 */
	private void besideQueue() {
		fixture().register(HandlerDefinition.of("pause.beside", "beside", (payload, context) -> null));
	}

	/**
	 * Waits until the one Manager has made a whole poll begun after now, in which it passed
	 * over the paused queue: a poll claims each queue in turn, so of three claims of the queue
	 * beside it from now on, the third's poll began after the second's had ended.
	 */
	private void awaitAWholePollPassedOver() {
		int before = fixture().listener().claims("beside");
		await().atMost(WAIT).pollInterval(Duration.ofMillis(10))
			.until(() -> fixture().listener().claims("beside") >= before + 3);
	}

	private void pausableHandler(String name, io.sqlqueue.handler.JobInvoker invoker) {
		fixture().register(HandlerDefinition.of(name, "pausable", invoker));
	}

	@Test
	default void aPausedQueueIsClaimedByNoInstanceUntilResumed() throws Exception {
		pausableHandler("pause.work", (payload, context) -> "done");
		try (HikariDataSource pool = isolatedDatabase().newDataSource(8)) {
			Manager first = fixture().startManager(fixture().store(),
					QueueFixture.fastSettings().pollInterval(POLL).workerId("first").build(), 8);
			Manager second = fixture().startInstance((s) -> s.pollInterval(POLL).workerId("second"), pool);
			AdminResult paused = admin(first).pauseQueue("pausable", "ops");
			assertThat(paused.done()).isTrue();
			assertThat(first.pausedQueues()).containsExactly("pausable");
			// The other instance reads the pause within a poll interval of its commit.
			await().atMost(POLL.multipliedBy(2)).until(() -> second.pausedQueues().contains("pausable"));
			List<Long> ids = new ArrayList<>();
			for (int i = 0; i < 5; i++) {
				ids.add(fixture().queue().enqueue("pause.work", i));
			}
			// Time must pass: two instances tell one listener of their claims, so a poll of each
			// cannot be told apart there, and a claim of a paused queue comes with no event.
			sleepQuietly(POLL.multipliedBy(2).toMillis());
			for (long id : ids) {
				JobRecord job = fixture().job(id);
				assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
				assertThat(job.attempts()).isZero();
			}
			assertThat(admin(first).pausedQueues()).singleElement().satisfies((queue) -> {
				assertThat(queue.queue()).isEqualTo("pausable");
				assertThat(queue.pausedBy()).isEqualTo("ops");
				assertThat(queue.pausedAt()).isNotNull();
			});
			// Resumed through neither instance: both read it at their next poll.
			QueueAdmin elsewhere = new DefaultQueueAdmin(fixture().queue(), fixture().store(), null, null, null);
			assertThat(elsewhere.resumeQueue("pausable").done()).isTrue();
			for (long id : ids) {
				awaitStatus(id, JobStatus.SUCCEEDED);
			}
			await().atMost(POLL.multipliedBy(2)).until(() -> second.pausedQueues().isEmpty());
			assertThat(first.pausedQueues()).isEmpty();
			// While its pool is open: stopping deletes its row.
			second.stop();
		}
	}

	@Test
	default void aRunningJobFinishesWhileItsQueueIsPaused() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		pausableHandler("pause.slow", (payload, context) -> {
			started.countDown();
			release.await(30, TimeUnit.SECONDS);
			return "done";
		});
		besideQueue();
		Manager manager = fixture().startManager(fixture().store(),
				QueueFixture.fastSettings().pollInterval(POLL).build(), 8);
		long running = fixture().queue().enqueue("pause.slow", 1);
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(admin(manager).pauseQueue("pausable").done()).isTrue();
		long queued = fixture().queue().enqueue("pause.slow", 2);
		release.countDown();
		awaitStatus(running, JobStatus.SUCCEEDED);
		awaitAWholePollPassedOver();
		assertThat(fixture().status(queued)).isEqualTo(JobStatus.QUEUED);
		assertThat(admin(manager).resumeQueue("pausable").done()).isTrue();
		awaitStatus(queued, JobStatus.SUCCEEDED);
	}

	/** An instance with one worker, held by a job, and five jobs it claimed ahead of that worker. */
	record HeldWorker(Manager manager, long held, List<Long> claimedAhead, CountDownLatch release) {
	}

	private HeldWorker claimAheadOfAHeldWorker(String handler) throws InterruptedException {
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		pausableHandler(handler, (payload, context) -> {
			if (payload.equals("1")) {
				started.countDown();
				release.await(30, TimeUnit.SECONDS);
			}
			return "done";
		});
		besideQueue();
		// One worker with room to claim ahead of it: fast jobs first, so the lane learns that
		// jobs are quick and claims the later ones while its one worker is held.
		Manager manager = fixture().startManager(fixture().store(),
				QueueFixture.fastSettings().pollInterval(POLL).defaultConcurrency(1).prefetch(10).build(), 8);
		List<Long> fast = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			fast.add(fixture().queue().enqueue(handler, 0));
		}
		for (long id : fast) {
			awaitStatus(id, JobStatus.SUCCEEDED);
		}
		long held = fixture().queue().enqueue(handler, 1);
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		List<Long> claimedAhead = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			claimedAhead.add(fixture().queue().enqueue(handler, 0));
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> claimedAhead.stream().allMatch((id) -> fixture().status(id) == JobStatus.RUNNING));
		return new HeldWorker(manager, held, claimedAhead, release);
	}

	/** Given back: {@code QUEUED}, no attempt spent; then, once resumed, run once each. */
	private void assertGivenBackAndRunAfterTheResume(HeldWorker worker) {
		for (long id : worker.claimedAhead()) {
			JobRecord job = fixture().job(id);
			assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
			assertThat(job.attempts()).isZero();
		}
		worker.release().countDown();
		awaitStatus(worker.held(), JobStatus.SUCCEEDED);
		awaitAWholePollPassedOver();
		for (long id : worker.claimedAhead()) {
			assertThat(fixture().status(id)).isEqualTo(JobStatus.QUEUED);
		}
		assertThat(admin(worker.manager()).resumeQueue("pausable").done()).isTrue();
		for (long id : worker.claimedAhead()) {
			awaitStatus(id, JobStatus.SUCCEEDED);
			assertThat(fixture().job(id).attempts()).isEqualTo(1);
		}
	}

	@Test
	default void claimedJobsNotStartedGoBackWhenTheirQueueIsPaused() throws Exception {
		HeldWorker worker = claimAheadOfAHeldWorker("pause.prefetched");
		assertThat(admin(worker.manager()).pauseQueue("pausable").done()).isTrue();
		// Given back when the pause returns, not when the held worker frees.
		assertGivenBackAndRunAfterTheResume(worker);
	}

	/**
	 * A pause from code inside a transaction of the caller's that read before it and then rolls
	 * back: the pause and the give-back each commit on their own (the jobs are the instance's,
	 * not the caller's; given back in the caller's transaction, a rollback would leave them
	 * {@code RUNNING} with no worker renewing their leases, to be reaped as crashes), and the
	 * pausing instance stops at once (it reads the paused queues outside the caller's snapshot,
	 * which on MariaDB's REPEATABLE READ would not show the pause).
	 */
	@Test
	default void aPauseInACallersTransactionThatRollsBackStopsAndGivesBackAtOnce() throws Exception {
		HeldWorker worker = claimAheadOfAHeldWorker("pause.in-transaction");
		TransactionTemplate caller = new TransactionTemplate(
				new DataSourceTransactionManager(isolatedDatabase().dataSource()));
		caller.executeWithoutResult((status) -> {
			fixture().jdbc().queryForObject("SELECT COUNT(*) FROM " + table("queue_job"), Long.class);
			assertThat(admin(worker.manager()).pauseQueue("pausable").done()).isTrue();
			assertThat(worker.manager().pausedQueues()).containsExactly("pausable");
			status.setRollbackOnly();
		});
		assertGivenBackAndRunAfterTheResume(worker);
	}

	@Test
	default void aPauseHoldsForAnInstanceThatStartsLater() {
		pausableHandler("pause.later", (payload, context) -> "done");
		QueueAdmin admin = new DefaultQueueAdmin(fixture().queue(), fixture().store(), null, null, null);
		long id = fixture().queue().enqueue("pause.later", 1);
		// Known by its queued job: no instance runs yet.
		assertThat(admin.pauseQueue("pausable").done()).isTrue();
		besideQueue();
		Manager manager = fixture().startManager(fixture().store(),
				QueueFixture.fastSettings().pollInterval(POLL).build(), 8);
		awaitAWholePollPassedOver();
		assertThat(fixture().status(id)).isEqualTo(JobStatus.QUEUED);
		assertThat(admin(manager).resumeQueue("pausable").done()).isTrue();
		awaitStatus(id, JobStatus.SUCCEEDED);
	}

	@Test
	default void pausingTwiceOrResumingAQueueNotPausedIsANoOp() {
		pausableHandler("pause.twice", (payload, context) -> "done");
		Manager manager = fixture().startManager(fixture().store(),
				QueueFixture.fastSettings().pollInterval(POLL).build(), 8);
		QueueAdmin admin = admin(manager);
		AdminResult notPaused = admin.resumeQueue("pausable");
		assertThat(notPaused.done()).isFalse();
		assertThat(notPaused.refusal()).isEqualTo(Refusal.QUEUE_NOT_PAUSED);
		assertThat(admin.pauseQueue("pausable", "first").done()).isTrue();
		AdminResult again = admin.pauseQueue("pausable", "second");
		assertThat(again.done()).isFalse();
		assertThat(again.refusal()).isEqualTo(Refusal.QUEUE_ALREADY_PAUSED);
		assertThat(again.message()).isEqualTo("Queue 'pausable' was paused already");
		// The first pause is kept as it was.
		assertThat(admin.pausedQueues()).singleElement()
			.satisfies((queue) -> assertThat(queue.pausedBy()).isEqualTo("first"));
	}

	@Test
	default void badPauseRequestsAreRefusedAndStoreNothing() {
		pausableHandler("pause.bad", (payload, context) -> "done");
		Manager manager = fixture().startManager(fixture().store(),
				QueueFixture.fastSettings().pollInterval(POLL).build(), 8);
		QueueAdmin admin = admin(manager);
		for (String invalid : new String[] { "", "  ", "bad queue", "x".repeat(65), "naïve" }) {
			assertThatExceptionOfType(RefusedException.class).isThrownBy(() -> admin.pauseQueue(invalid))
				.isInstanceOf(IllegalArgumentException.class)
				.satisfies((ex) -> assertThat(ex.refusal()).isEqualTo(Refusal.INVALID_QUEUE));
			assertThatExceptionOfType(RefusedException.class).isThrownBy(() -> admin.resumeQueue(invalid))
				.satisfies((ex) -> assertThat(ex.refusal()).isEqualTo(Refusal.INVALID_QUEUE));
		}
		assertThatExceptionOfType(RefusedException.class).isThrownBy(() -> admin.pauseQueue(null))
			.satisfies((ex) -> assertThat(ex.refusal()).isEqualTo(Refusal.INVALID_QUEUE));
		// No handler serves it, no instance lists it, no job waits in it (a finished one does not count).
		assertThatExceptionOfType(RefusedException.class).isThrownBy(() -> admin.pauseQueue("nowhere"))
			.withMessage("No queue 'nowhere': no handler serves it, no instance lists it and no job waits in it")
			.satisfies((ex) -> assertThat(ex.refusal()).isEqualTo(Refusal.UNKNOWN_QUEUE));
		assertThat(admin.pausedQueues()).isEmpty();
		assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM " + table("queue_paused"), Integer.class))
			.isZero();
		assertThat(manager.pausedQueues()).isEmpty();
	}

	@Test
	default void aQueueAnotherInstanceServesCanBePausedFromOneThatDoesNot() {
		pausableHandler("pause.remote", (payload, context) -> "done");
		Manager remote = fixture().startManager(fixture().store(),
				QueueFixture.fastSettings().pollInterval(POLL).workerId("remote").build(), 8);
		assertThat(remote.beatInstance()).isTrue();
		QueueAdmin local = new DefaultQueueAdmin(fixture().queue(), fixture().store(), null, null, null);
		assertThat(local.pauseQueue("pausable").done()).isTrue();
		assertThat(local.resumeQueue("pausable").done()).isTrue();
	}

}
