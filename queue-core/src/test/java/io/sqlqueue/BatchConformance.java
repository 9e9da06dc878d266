package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.sqlqueue.Batch;
import io.sqlqueue.BatchIds;
import io.sqlqueue.BatchProgress;
import io.sqlqueue.DependencyFailure;
import io.sqlqueue.JobLinks;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.store.JobStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Batches on every database and claim method: fanned out over instances, each member runs
 * once and the callback runs once after all of them, whatever the order in which members
 * end or are retried; a finished batch is pruned once its callback has finished.
 * {@link QueueConformanceTests} implements this. (Dependencies: {@link WorkflowConformance}.)
 */
interface BatchConformance extends ConformanceSupport {

	// --- batches

	@Test
	default void fanOutAndInOfAThousandJobsOnThreeInstancesRunsTheCallbackExactlyOnce() {
		int total = 1000;
		fixture().jdbc().execute("CREATE TABLE callback_run (batch_id BIGINT, succeeded INT, failed INT, pending INT)");
		fixture().jdbc().execute("CREATE TABLE member_run (job_id BIGINT PRIMARY KEY)");
		// Members start once all three instances run, so that no instance can take every job alone.
		java.util.concurrent.CountDownLatch allRunning = new java.util.concurrent.CountDownLatch(1);
		fixture().register(new HandlerDefinition("member", "default", 1, null, java.util.Set.of(), (payload, context) -> {
			assertThat(allRunning.await(SETTLE_WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
			fixture().jdbc().update("INSERT INTO member_run (job_id) VALUES (?)", context.jobId());
			if (Integer.parseInt(payload) % 100 == 7) {
				throw new IllegalStateException("one in a hundred fails");
			}
			return null;
		}, "member"));
		handler("zip", (payload, context) -> {
			BatchProgress progress = context.batch().orElseThrow();
			fixture().jdbc().update("INSERT INTO callback_run (batch_id, succeeded, failed, pending) VALUES (?, ?, ?, ?)",
					progress.id(), progress.succeeded(), progress.failed(), progress.pending());
			return null;
		});
		List<Job> members = new ArrayList<>();
		for (int i = 0; i < total; i++) {
			members.add(Job.of("member", i));
		}
		BatchIds batch = fixture().queue().enqueue(Batch.of(members).callback(Job.of("zip", "album")));
		assertThat(fixture().status(batch.callbackId())).isEqualTo(JobStatus.WAITING);
		assertThat(fixture().queue().batch(batch.batchId()).orElseThrow().pending()).isEqualTo(total);
		List<HikariDataSource> pools = List.of(fixture().database().newDataSource(12),
				fixture().database().newDataSource(12));
		try {
			startThreeInstances(pools, 8);
			allRunning.countDown();
			awaitStatus(batch.callbackId(), JobStatus.SUCCEEDED, SETTLE_WAIT);
			assertThat(fixture().jdbc().queryForList("SELECT batch_id, succeeded, failed, pending FROM callback_run"))
				.as("the callback ran once, and saw every member ended")
				.singleElement()
				.satisfies((row) -> {
					assertThat(((Number) row.get("succeeded")).intValue()).isEqualTo(990);
					assertThat(((Number) row.get("failed")).intValue()).isEqualTo(10);
					assertThat(((Number) row.get("pending")).intValue()).isZero();
				});
			BatchProgress progress = fixture().queue().batch(batch.batchId()).orElseThrow();
			assertThat(progress.succeeded()).isEqualTo(990);
			assertThat(progress.failed()).isEqualTo(10);
			assertThat(progress.total()).isEqualTo(total);
			assertThat(progress.isFinished()).isTrue();
			assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM member_run", Integer.class)).isEqualTo(total);
			assertThat(fixture().count("attempts <> 1")).as("every job ran once").isZero();
			assertThat(fixture().count("lease_owner <> 'one'")).as("the other instances took part").isPositive();
			assertThat(fixture().count("settles <> 0")).isZero();
			JobLinks callback = fixture().queue().links(batch.callbackId()).orElseThrow();
			assertThat(callback.callbackOf()).isNotNull();
			assertThat(callback.callbackOf().id()).isEqualTo(batch.batchId());
			assertThat(callback.batch()).isNull();
			assertThat(fixture().queue().links(batch.jobIds().get(0)).orElseThrow().batch().id())
				.isEqualTo(batch.batchId());
		}
		finally {
			stopInstances(pools);
		}
	}

	/**
	 * Fan-out and fan-in across three instances: one job's success releases a thousand jobs
	 * that wait for it (more ids than one statement of settling binds), each runs once, and a
	 * callback that waits for all of them runs once after them. Each instance runs two jobs at
	 * a time, and the first six wait for each other, so all three surely take part.
	 */
	@Test
	default void oneJobReleasesAThousandThatRunOnceEachOnThreeInstancesAndOneRunsAfterAllOfThem() {
		int total = 1000;
		fixture().jdbc().execute("CREATE TABLE dependent_run (job_id BIGINT PRIMARY KEY)");
		fixture().jdbc().execute("CREATE TABLE fan_in_run (succeeded INT, pending INT)");
		java.util.concurrent.CountDownLatch sixRunning = new java.util.concurrent.CountDownLatch(6);
		handler("root", (payload, context) -> null);
		handler("dependent", (payload, context) -> {
			sixRunning.countDown();
			assertThat(sixRunning.await(SETTLE_WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
			fixture().jdbc().update("INSERT INTO dependent_run (job_id) VALUES (?)", context.jobId());
			return null;
		});
		handler("fanIn", (payload, context) -> {
			BatchProgress progress = context.batch().orElseThrow();
			fixture().jdbc().update("INSERT INTO fan_in_run (succeeded, pending) VALUES (?, ?)", progress.succeeded(),
					progress.pending());
			return null;
		});
		long root = fixture().queue().enqueue("root", null);
		List<Job> dependents = new ArrayList<>();
		for (int i = 0; i < total; i++) {
			dependents.add(Job.of("dependent", i).after(root));
		}
		BatchIds batch = fixture().queue().enqueue(Batch.of(dependents).callback(Job.of("fanIn", null)));
		assertThat(fixture().count("status = 'WAITING'")).isEqualTo(total + 1);
		List<HikariDataSource> pools = List.of(fixture().database().newDataSource(6),
				fixture().database().newDataSource(6));
		try {
			startThreeInstances(pools, 2);
			awaitStatus(batch.callbackId(), JobStatus.SUCCEEDED, SETTLE_WAIT);
			assertThat(fixture().status(root)).isEqualTo(JobStatus.SUCCEEDED);
			assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM dependent_run", Integer.class))
				.isEqualTo(total);
			assertThat(fixture().count("handler = 'dependent' AND status = 'SUCCEEDED' AND attempts = 1"))
				.as("every dependent ran once").isEqualTo(total);
			for (String owner : List.of("one", "other-0", "other-1")) {
				assertThat(fixture().count("handler = 'dependent' AND lease_owner = '" + owner + "'")).as(owner)
					.isPositive();
			}
			assertThat(fixture().jdbc().queryForList("SELECT succeeded, pending FROM fan_in_run"))
				.as("the job after all of them ran once, after all of them")
				.singleElement()
				.satisfies((row) -> {
					assertThat(((Number) row.get("succeeded")).intValue()).isEqualTo(total);
					assertThat(((Number) row.get("pending")).intValue()).isZero();
				});
			assertThat(fixture().count("settles <> 0 OR waiting_for <> 0")).isZero();
		}
		finally {
			stopInstances(pools);
		}
	}

	/**
	 * The last two members of a batch, which are also the two dependencies of one job, end at
	 * the same moment on two instances, round after round: the callback and the dependent are
	 * released once each (a second release would take a count below zero, which the table's
	 * checks refuse, and a lost one would leave them waiting).
	 */
	@Test
	default void theLastTwoJobsEndingAtOnceOnTwoInstancesReleaseWhatWaitsForThemOnce() throws Exception {
		try (HikariDataSource other = fixture().database().newDataSource(4)) {
			List<JobStore> stores = List.of(fixture().store(), fixture().newStore(other));
			java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
			try {
				for (int round = 0; round < 20; round++) {
					BatchIds batch = fixture().queue()
						.enqueue(Batch.of(List.of(Job.of("pair", 1), Job.of("pair", 2))).callback(Job.of("done", 0)));
					long dependent = fixture().queue()
						.enqueue(Job.of("done", round).after(batch.jobIds().get(0), batch.jobIds().get(1)));
					List<JobRecord> claimed = claimAll("pair");
					assertThat(claimed).hasSize(2);
					java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
					List<java.util.concurrent.Future<boolean[]>> ends = new ArrayList<>();
					for (int i = 0; i < 2; i++) {
						JobStore store = stores.get(i);
						JobRecord job = claimed.get(i);
						ends.add(threads.submit(() -> {
							together.await();
							return store.complete(List.of(success(job)));
						}));
					}
					for (java.util.concurrent.Future<boolean[]> end : ends) {
						assertThat(end.get()).containsExactly(true);
					}
					assertThat(fixture().status(batch.callbackId())).isEqualTo(JobStatus.QUEUED);
					assertThat(fixture().status(dependent)).isEqualTo(JobStatus.QUEUED);
					BatchProgress progress = fixture().queue().batch(batch.batchId()).orElseThrow();
					assertThat(progress.succeeded()).isEqualTo(2);
					assertThat(progress.pending()).isZero();
					fixture().jdbc().update("UPDATE " + fixture().table() + " SET status = 'CANCELLED' WHERE handler = 'done'");
				}
			}
			finally {
				threads.shutdownNow();
			}
		}
	}

	@Test
	default void anOperatorRetryOfAFailedMemberCountsNothingTwiceAndLeavesCancelledDependentsAlone() {
		java.util.concurrent.atomic.AtomicBoolean broken = new java.util.concurrent.atomic.AtomicBoolean(true);
		fixture().register(new HandlerDefinition("member", "default", 1, null, java.util.Set.of(), (payload, context) -> {
			if (broken.get()) {
				throw new IllegalStateException("broken until an operator fixes it");
			}
			return null;
		}, "member"));
		AtomicInteger callbacks = new AtomicInteger();
		handler("callback", (payload, context) -> callbacks.incrementAndGet());
		handler("work", (payload, context) -> null);
		BatchIds batch = fixture().queue().enqueue(Batch.of(List.of(Job.of("member", 1))).callback(Job.of("callback", 1)));
		long member = batch.jobIds().get(0);
		long dependent = fixture().queue().enqueue(Job.of("work", null).after(member));
		long slow = fixture().queue().enqueue(Job.of("work", null).delay(Duration.ofHours(1)));
		long patient = fixture().queue().enqueue(Job.of("work", null).after(member, slow)
			.onDependencyFailure(DependencyFailure.RUN));
		fixture().startManager((s) -> s);
		awaitStatus(batch.callbackId(), JobStatus.SUCCEEDED, SETTLE_WAIT);
		assertThat(fixture().status(dependent)).isEqualTo(JobStatus.CANCELLED);
		assertThat(fixture().queue().links(patient).orElseThrow().waitingFor()).isEqualTo(1);
		broken.set(false);
		// Retried, and given a new dependent, in one transaction: its next end settles the new one only.
		TransactionTemplate transaction = new TransactionTemplate(
				new DataSourceTransactionManager(fixture().database().dataSource()));
		long late = transaction.execute((status) -> {
			assertThat(fixture().queue().retry(member)).isTrue();
			return fixture().queue().enqueue(Job.of("work", null).after(member));
		});
		awaitStatus(member, JobStatus.SUCCEEDED, SETTLE_WAIT);
		awaitStatus(late, JobStatus.SUCCEEDED, SETTLE_WAIT);
		BatchProgress progress = fixture().queue().batch(batch.batchId()).orElseThrow();
		assertThat(progress.failed()).isEqualTo(1);
		assertThat(progress.succeeded()).isZero();
		assertThat(callbacks).hasValue(1);
		assertThat(fixture().status(dependent)).isEqualTo(JobStatus.CANCELLED);
		assertThat(fixture().status(patient)).as("still waiting for the slow job only").isEqualTo(JobStatus.WAITING);
		assertThat(fixture().queue().links(patient).orElseThrow().waitingFor()).isEqualTo(1);
	}

	// --- pruning

	@Test
	default void pruningAFinishedWorkflowForgetsItsEdgesAndItsBatch() {
		BatchIds batch = fixture().queue().enqueue(Batch.of(List.of(Job.of("work", 1))));
		long dependent = fixture().queue().enqueue(Job.of("work", 2).after(batch.jobIds().get(0)));
		for (int round = 0; round < 2; round++) {
			List<JobRecord> claimed = claimAll("work");
			fixture().store().complete(claimed.stream().map(this::success).toList());
		}
		assertThat(fixture().status(dependent)).isEqualTo(JobStatus.SUCCEEDED);
		fixture().jdbc().update("UPDATE " + table("queue_batch") + " SET finished_at = created_at");
		// Finished before now by the database's clock: on SQLite (milliseconds) the last may need a moment.
		AtomicInteger pruned = new AtomicInteger();
		await().atMost(SETTLE_WAIT).until(
				() -> pruned.addAndGet(fixture().store().pruneFinished(JobStatus.SUCCEEDED, Duration.ZERO, 100)) >= 2);
		assertThat(pruned).hasValue(2);
		assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM " + table("queue_dependency"), Integer.class))
			.isZero();
		assertThat(fixture().store().pruneBatches(Duration.ZERO)).isEqualTo(1);
		assertThat(fixture().queue().batch(batch.batchId())).isEmpty();
	}

	/**
	 * A batch that finished long ago while its callback has not run yet (delayed here; waiting
	 * for other jobs or retrying alike) is kept, so the callback reads it; once the callback
	 * has finished as long ago, the batch goes.
	 */
	@Test
	default void pruningKeepsABatchUntilItsCallbackHasFinished() {
		List<String> seen = Collections.synchronizedList(new ArrayList<>());
		handler("zip", (payload, context) -> seen
			.add(context.batch().map((batch) -> batch.succeeded() + " succeeded").orElse("no batch")));
		BatchIds batch = fixture().queue().enqueue(Batch.of(List.of(Job.of("work", 1)))
			.callback(Job.of("zip", null).delay(Duration.ofHours(1))));
		List<JobRecord> claimed = claimAll("work");
		assertThat(fixture().store().complete(List.of(success(claimed.get(0))))).containsExactly(true);
		assertThat(fixture().status(batch.callbackId())).isEqualTo(JobStatus.QUEUED);
		Instant dayAgo = Instant.now().minus(Duration.ofDays(1));
		backdate("queue_batch", batch.batchId(), dayAgo);
		assertThat(fixture().store().pruneBatches(Duration.ofMinutes(1))).as("its callback has not run").isZero();

		assertThat(fixture().store().makeDue(List.of("zip"))).isEqualTo(1);
		fixture().startManager((s) -> s);
		awaitStatus(batch.callbackId(), JobStatus.SUCCEEDED, SETTLE_WAIT);
		assertThat(seen).containsExactly("1 succeeded");
		assertThat(fixture().store().pruneBatches(Duration.ofMinutes(1))).as("its callback has just finished").isZero();
		backdate("queue_job", batch.callbackId(), dayAgo);
		assertThat(fixture().store().pruneBatches(Duration.ofMinutes(1))).isEqualTo(1);
		assertThat(fixture().queue().batch(batch.batchId())).isEmpty();
	}

	private void backdate(String table, long id, Instant finishedAt) {
		fixture().jdbc().update("UPDATE " + table(table) + " SET finished_at = ? WHERE id = ?", (ps) -> {
			fixture().database().dialect().setTimestamp(ps, 1, finishedAt);
			ps.setLong(2, id);
		});
	}

	/** Starts this fixture's Manager ("one") and one instance on each of the other pools. */
	private void startThreeInstances(List<HikariDataSource> pools, int concurrency) {
		fixture().startManager((s) -> s.workerId("one").defaultConcurrency(concurrency));
		for (HikariDataSource pool : pools) {
			fixture().startInstance((s) -> s.workerId("other-" + pools.indexOf(pool)).defaultConcurrency(concurrency),
					pool);
		}
	}

	/** Stops every instance of the fixture, then closes the other instances' pools. */
	private void stopInstances(List<HikariDataSource> pools) {
		try {
			fixture().close();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		pools.forEach(HikariDataSource::close);
	}

}
