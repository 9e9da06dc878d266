package io.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.JobInvoker;
import io.sqlqueue.internal.DefaultJobQueue;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.schema.QueueSchemaMigrator;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.internal.store.NewJob;
import io.sqlqueue.internal.store.WorkflowStore;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Workflows on every database and claim method: a job waits for the jobs it runs after and
 * is released, cancelled or run by its policy as they end, whoever ends them (a worker, the
 * reaper, the deadline sweep); a workflow is written whole or not at all.
 * {@link QueueConformanceTests} implements this, so each of its subclasses runs these tests
 * on its own database. Every outcome is read from the database; concurrency is real threads
 * on real connections. (Batches: {@link BatchConformance}.)
 */
interface WorkflowConformance extends ConformanceSupport {

	// --- dependencies

	@Test
	default void aChainRunsStepByStepAndTheClaimNeverTakesAWaitingJob() {
		WorkflowIds ids = fixture().queue().enqueue(Workflow.create()
			.step("charge", Job.of("charge", 1))
			.step("ship", Job.of("ship", 1), "charge")
			.step("mail", Job.of("mail", 1), "ship"));
		assertThat(fixture().status(ids.of("charge"))).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().status(ids.of("ship"))).isEqualTo(JobStatus.WAITING);
		assertThat(fixture().status(ids.of("mail"))).isEqualTo(JobStatus.WAITING);
		List<JobRecord> first = claimAll("charge", "ship", "mail");
		assertThat(first).extracting(JobRecord::id).containsExactly(ids.of("charge"));
		assertThat(fixture().store().complete(List.of(success(first.get(0))))).containsExactly(true);
		assertThat(fixture().status(ids.of("ship"))).as("due in the transaction of charge's success")
			.isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().status(ids.of("mail"))).isEqualTo(JobStatus.WAITING);

		List<String> ran = Collections.synchronizedList(new ArrayList<>());
		handler("ship", (payload, context) -> ran.add("ship"));
		handler("mail", (payload, context) -> ran.add("mail"));
		fixture().startManager((s) -> s);
		awaitStatus(ids.of("mail"), JobStatus.SUCCEEDED, SETTLE_WAIT);
		assertThat(ran).containsExactly("ship", "mail");
		JobRecord ship = fixture().job(ids.of("ship"));
		JobRecord mail = fixture().job(ids.of("mail"));
		assertThat(mail.startedAt()).isAfterOrEqualTo(ship.finishedAt());
		assertThat(mail.attempts()).isEqualTo(1);

		JobLinks links = fixture().queue().links(ids.of("ship")).orElseThrow();
		assertThat(links.dependencies()).extracting(JobLinks.LinkedJob::id, JobLinks.LinkedJob::status)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(ids.of("charge"), JobStatus.SUCCEEDED));
		assertThat(links.dependents()).extracting(JobLinks.LinkedJob::id).containsExactly(ids.of("mail"));
		assertThat(links.waitingFor()).isZero();
		assertThat(fixture().queue().links(ids.of("mail")).orElseThrow().dependents()).isEmpty();
		assertThat(fixture().queue().links(424242)).isEmpty();
		WorkflowGraph graph = fixture().queue().graph(ids.of("mail")).orElseThrow();
		assertThat(graph.jobs()).extracting(JobLinks.LinkedJob::id)
			.containsExactly(ids.of("charge"), ids.of("ship"), ids.of("mail"));
		assertThat(graph.edges()).extracting((edge) -> edge[0] + ">" + edge[1]).containsExactlyInAnyOrder(
				ids.of("charge") + ">" + ids.of("ship"), ids.of("ship") + ">" + ids.of("mail"));
		assertThat(graph.truncated()).isFalse();
	}

	@Test
	default void aFailedDependencyCancelsWaitingJobsInTurnOrRunsThemByTheirPolicy() {
		failingHandler("charge");
		List<Long> ran = Collections.synchronizedList(new ArrayList<>());
		handler("work", (payload, context) -> ran.add(context.jobId()));
		long charge = fixture().queue().enqueue("charge", null);
		long ship = fixture().queue().enqueue(Job.of("work", "ship").after(charge));
		long mail = fixture().queue().enqueue(Job.of("work", "mail").after(ship));
		long report = fixture().queue().enqueue(Job.of("work", "report").after(charge)
			.onDependencyFailure(DependencyFailure.RUN));
		long audit = fixture().queue().enqueue(Job.of("work", "audit").after(mail)
			.onDependencyFailure(DependencyFailure.RUN));
		fixture().startManager((s) -> s);
		awaitStatus(audit, JobStatus.SUCCEEDED, SETTLE_WAIT);
		awaitStatus(report, JobStatus.SUCCEEDED, SETTLE_WAIT);
		assertThat(fixture().status(charge)).isEqualTo(JobStatus.FAILED);
		assertThat(fixture().status(ship)).isEqualTo(JobStatus.CANCELLED);
		assertThat(fixture().job(ship).lastError()).contains("job " + charge).contains("FAILED");
		assertThat(fixture().job(ship).attempts()).isZero();
		assertThat(fixture().status(mail)).isEqualTo(JobStatus.CANCELLED);
		assertThat(fixture().job(mail).lastError()).contains("job " + ship).contains("CANCELLED");
		assertThat(ran).containsExactlyInAnyOrder(report, audit);
		assertThat(fixture().listener().events()).contains("cancelled default work");
	}

	@Test
	default void dependentsWaitThroughTheRetriesOfTheirDependency() {
		AtomicInteger tries = new AtomicInteger();
		List<String> seen = Collections.synchronizedList(new ArrayList<>());
		long[] dependent = new long[1];
		handler("flaky", (payload, context) -> {
			seen.add("flaky " + context.attempt() + ": dependent " + fixture().status(dependent[0]));
			if (tries.incrementAndGet() < 3) {
				throw new IllegalStateException("not yet");
			}
			return null;
		});
		handler("after", (payload, context) -> null);
		WorkflowIds ids = fixture().queue().enqueue(Workflow.create()
			.step("flaky", Job.of("flaky", null).maxAttempts(3))
			.step("after", Job.of("after", null), "flaky"));
		dependent[0] = ids.of("after");
		fixture().startManager((s) -> s);
		awaitStatus(ids.of("after"), JobStatus.SUCCEEDED, SETTLE_WAIT);
		assertThat(seen).containsExactly("flaky 1: dependent WAITING", "flaky 2: dependent WAITING",
				"flaky 3: dependent WAITING");
		assertThat(fixture().job(ids.of("after")).attempts()).isEqualTo(1);
		assertThat(fixture().job(ids.of("after")).startedAt())
			.isAfterOrEqualTo(fixture().job(ids.of("flaky")).finishedAt());
	}

	@Test
	default void cancellingAWaitingWorkflowCancelsEveryJobThatWaitsForIt() {
		WorkflowIds ids = fixture().queue().enqueue(Workflow.create()
			.step("first", Job.of("work", 1).delay(Duration.ofHours(1)))
			.step("second", Job.of("work", 2), "first")
			.step("third", Job.of("work", 3), "second")
			.step("aside", Job.of("work", 4)));
		long alone = fixture().queue().enqueue(Job.of("work", 5).after(ids.of("aside")));
		assertThat(fixture().queue().cancel(alone)).as("a waiting job is cancelled like a queued one").isTrue();
		assertThat(fixture().status(alone)).isEqualTo(JobStatus.CANCELLED);
		assertThat(fixture().queue().cancel(ids.of("first"))).isTrue();
		assertThat(fixture().status(ids.of("second"))).isEqualTo(JobStatus.CANCELLED);
		assertThat(fixture().status(ids.of("third"))).isEqualTo(JobStatus.CANCELLED);
		assertThat(fixture().status(ids.of("aside"))).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().queue().cancel(ids.of("third"))).as("finished already").isFalse();
		assertThat(fixture().count("status = 'WAITING'")).isZero();
	}

	@Test
	default void aDependentAddedWhileItsDependencyRunsIsReleasedByThatRunsEnd() {
		long running = fixture().queue().enqueue("work", null);
		JobRecord claimed = claimAll("work").get(0);
		// Added after the claim: the worker's copy of the job knows nothing of it.
		long late = fixture().queue().enqueue(Job.of("later", null).after(running));
		long done = fixture().queue().enqueue("work", null);
		JobRecord plain = claimAll("work").get(0);
		assertThat(fixture().status(late)).isEqualTo(JobStatus.WAITING);
		assertThat(fixture().store().complete(List.of(success(claimed), success(plain)))).containsExactly(true, true);
		assertThat(fixture().status(late)).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().status(done)).isEqualTo(JobStatus.SUCCEEDED);
		long afterDone = fixture().queue().enqueue(Job.of("later", null).after(done));
		assertThat(fixture().status(afterDone)).as("a dependency that succeeded already counts as done")
			.isEqualTo(JobStatus.QUEUED);
	}

	@Test
	default void aLeaseThatExpiresOnTheLastDependencySettlesItsDependentsOnceWhenItRunsAgain() {
		BatchIds batch = fixture().queue().enqueue(Batch.of(List.of(Job.of("work", 1))).callback(Job.of("done", null)));
		long member = batch.jobIds().get(0);
		long dependent = fixture().queue().enqueue(Job.of("done", null).after(member));
		JobStore store = fixture().store();
		JobRecord lost = store.claim(new ClaimRequest("frozen", "default", List.of("work"), 1, 1)).get(0);
		Reaper reaper = fixture().reaper(store);
		await().atMost(SETTLE_WAIT).until(() -> !reaper.runOnce().isEmpty());
		assertThat(fixture().status(member)).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().status(dependent)).isEqualTo(JobStatus.WAITING);
		JobRecord again = claimAll("work").get(0);
		assertThat(store.complete(List.of(success(lost)))).as("the frozen worker's late success is fenced")
			.containsExactly(false);
		assertThat(fixture().status(dependent)).isEqualTo(JobStatus.WAITING);
		assertThat(store.complete(List.of(success(again)))).containsExactly(true);
		assertThat(store.complete(List.of(success(again)))).as("recorded once").containsExactly(false);
		assertThat(fixture().status(dependent)).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().job(dependent).attempts()).isZero();
		assertThat(fixture().status(batch.callbackId())).isEqualTo(JobStatus.QUEUED);
		BatchProgress progress = fixture().queue().batch(batch.batchId()).orElseThrow();
		assertThat(progress.succeeded()).isEqualTo(1);
		assertThat(progress.pending()).isZero();
		assertThat(progress.finishedAt()).isNotNull();
	}

	@Test
	default void theReaperAndTheDeadlineSweepSettleTheJobsTheyEnd() {
		JobStore store = fixture().store();
		long crashing = fixture().queue().enqueue(Job.of("work", null).maxAttempts(1));
		long afterCrash = fixture().queue().enqueue(Job.of("work", null).after(crashing));
		long expiring = fixture().queue().enqueue(Job.of("nobody", null).deadline(Instant.now().plusMillis(300)));
		long afterExpiry = fixture().queue().enqueue(Job.of("work", null).after(expiring)
			.onDependencyFailure(DependencyFailure.RUN));
		store.claim(new ClaimRequest("crashed", "default", List.of("work"), 1, 1));
		Reaper reaper = fixture().reaper(store);
		await().atMost(SETTLE_WAIT).until(() -> !reaper.runOnce().isEmpty());
		assertThat(fixture().status(crashing)).isEqualTo(JobStatus.FAILED);
		assertThat(fixture().status(afterCrash)).isEqualTo(JobStatus.CANCELLED);
		await().atMost(SETTLE_WAIT).until(() -> !reaper.expireOnce().isEmpty());
		assertThat(fixture().status(expiring)).isEqualTo(JobStatus.CANCELLED);
		assertThat(fixture().status(afterExpiry)).isEqualTo(JobStatus.QUEUED);
	}

	/**
	 * An expired job whose end cannot be settled (its dependent's count is broken here, so
	 * the table's check refuses the dependent's cancel) is left as it was for the next pass:
	 * the reaper ends the other expired jobs in the same pass, and the deadline sweep runs.
	 */
	@Test
	default void anExpiredJobWhoseEndCannotBeSettledHoldsBackNoOtherJobOfTheReaper() {
		JobStore store = fixture().store();
		long broken = fixture().queue().enqueue(Job.of("work", 1).maxAttempts(1));
		long brokenDependent = fixture().queue().enqueue(Job.of("later", null).after(broken));
		long other = fixture().queue().enqueue(Job.of("work", 2).maxAttempts(1));
		long otherDependent = fixture().queue().enqueue(Job.of("later", null).after(other));
		long expiring = fixture().queue().enqueue(Job.of("nobody", null).deadline(Instant.now().plusMillis(300)));
		long expiringDependent = fixture().queue().enqueue(Job.of("later", null).after(expiring));
		// One at a time, so that the broken job's lease expires first and is read first.
		assertThat(store.claim(new ClaimRequest("crashed", "default", List.of("work"), 1, 1)))
			.extracting(JobRecord::id).containsExactly(broken);
		assertThat(store.claim(new ClaimRequest("crashed", "default", List.of("work"), 1, 1)))
			.extracting(JobRecord::id).containsExactly(other);
		fixture().jdbc().update("UPDATE " + fixture().table() + " SET waiting_for = 0 WHERE id = ?", brokenDependent);
		Reaper reaper = fixture().reaper(store);
		await().atMost(SETTLE_WAIT).until(() -> {
			reaper.runOnce();
			return fixture().status(other) == JobStatus.FAILED;
		});
		assertThat(fixture().status(otherDependent)).isEqualTo(JobStatus.CANCELLED);
		assertThat(fixture().status(broken)).as("left for the next pass").isEqualTo(JobStatus.RUNNING);
		assertThat(fixture().status(brokenDependent)).isEqualTo(JobStatus.WAITING);
		await().atMost(SETTLE_WAIT).until(() -> !reaper.expireOnce().isEmpty());
		assertThat(fixture().status(expiring)).isEqualTo(JobStatus.CANCELLED);
		assertThat(fixture().status(expiringDependent)).isEqualTo(JobStatus.CANCELLED);

		fixture().jdbc().update("UPDATE " + fixture().table() + " SET waiting_for = 1 WHERE id = ?", brokenDependent);
		assertThat(reaper.runOnce()).extracting(io.sqlqueue.ReapedJob::id).containsExactly(broken);
		assertThat(fixture().status(broken)).isEqualTo(JobStatus.FAILED);
		assertThat(fixture().status(brokenDependent)).isEqualTo(JobStatus.CANCELLED);
	}

	/**
	 * A caller's transaction that enqueued a job to run after a running one holds that job's
	 * row until it commits. The instance's heartbeat passes over that row instead of waiting
	 * for it, so the leases of its other jobs move on (else they expire, and the reaper hands
	 * them to another worker while they run), and the held one is not taken for lost. SQLite
	 * is left out: it has one writer at a time, and a transaction that wrote holds every other
	 * writer, the heartbeat included, until it ends.
	 */
	@Test
	default void theHeartbeatExtendsTheOtherLeasesWhileACallersTransactionHoldsARunningJobsRow() throws Exception {
		org.junit.jupiter.api.Assumptions.assumeFalse(fixture().database().dialect().name().equals("sqlite"),
				"SQLite has one writer at a time");
		java.util.concurrent.CountDownLatch finish = new java.util.concurrent.CountDownLatch(1);
		handler("long", (payload, context) -> finish.await(SETTLE_WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS));
		long held = fixture().queue().enqueue("long", 1);
		long other = fixture().queue().enqueue("long", 2);
		try {
			io.sqlqueue.internal.manager.Manager manager = fixture().startManager((s) -> s.leaseDuration(Duration.ofMillis(1500)));
			awaitStatus(held, JobStatus.RUNNING, SETTLE_WAIT);
			awaitStatus(other, JobStatus.RUNNING, SETTLE_WAIT);
			try (io.sqlqueue.test.OpenTransaction<Long> open = io.sqlqueue.test.OpenTransaction.begin(
					fixture().database().dataSource(), () -> fixture().queue().enqueue(Job.of("next", null).after(held)))) {
				long dependent = open.result();
				Instant heldUntil = fixture().job(held).leaseExpiresAt();
				Instant otherUntil = fixture().job(other).leaseExpiresAt();
				await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
					.until(() -> fixture().job(other).leaseExpiresAt().isAfter(otherUntil));
				assertThat(fixture().job(held).leaseExpiresAt()).as("passed over while its row is held")
					.isEqualTo(heldUntil);
				assertThat(manager.leaseLosses()).isZero();
				open.commit();
				await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
					.until(() -> fixture().job(held).leaseExpiresAt().isAfter(heldUntil));
				finish.countDown();
				awaitStatus(held, JobStatus.SUCCEEDED, SETTLE_WAIT);
				awaitStatus(other, JobStatus.SUCCEEDED, SETTLE_WAIT);
				assertThat(fixture().status(dependent)).isEqualTo(JobStatus.QUEUED);
				assertThat(manager.leaseLosses()).isZero();
				assertThat(fixture().count("attempts <> 1 AND handler = 'long'")).isZero();
			}
		}
		finally {
			finish.countDown();
		}
	}

	@Test
	default void aTransactionalDependencySettlesItsDependentsInItsOwnTransaction() {
		fixture().jdbc().execute("CREATE TABLE effect (job_id BIGINT PRIMARY KEY)");
		fixture().register(new HandlerDefinition("effect", "default", 3, null, java.util.Set.of(),
				(payload, context) -> {
					fixture().jdbc().update("INSERT INTO effect (job_id) VALUES (?)", context.jobId());
					return null;
				}, "effect", true));
		handler("next", (payload, context) -> null);
		WorkflowIds ids = fixture().queue().enqueue(Workflow.create()
			.step("effect", Job.of("effect", null))
			.step("next", Job.of("next", null), "effect"));
		fixture().startManager((s) -> s);
		awaitStatus(ids.of("next"), JobStatus.SUCCEEDED, SETTLE_WAIT);
		assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM effect", Integer.class)).isEqualTo(1);
	}

	// --- enqueue: atomic, validated before anything is written

	/**
	 * docs/workflows.md's rows for links: the same id twice counts once; a cancelled dependency refuses a
	 * new dependent (CANCEL); a step cannot name itself; a released job keeps its own delay.
	 */
	@Test
	default void anIdNamedTwiceCountsOnceACancelledDependencyIsRefusedAndAReleasedJobKeepsItsDelay() {
		long first = fixture().queue().enqueue(Job.of("work", 1));
		long twice = fixture().queue().enqueue(Job.of("work", 2).after(first, first));
		long later = fixture().queue().enqueue(Job.of("work", 3).after(first).delay(Duration.ofHours(1)));
		assertThat(fixture().queue().links(twice).orElseThrow().waitingFor()).isEqualTo(1);
		List<JobRecord> claimed = claimAll("work");
		assertThat(claimed).extracting(JobRecord::id).containsExactly(first);
		assertThat(fixture().store().complete(List.of(success(claimed.get(0))))).containsExactly(true);
		assertThat(fixture().status(twice)).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().status(later)).isEqualTo(JobStatus.QUEUED);
		assertThat(claimAll("work")).as("the delayed one waits for its own time").extracting(JobRecord::id)
			.containsExactly(twice);
		assertThat(fixture().job(later).runAt()).isAfter(java.time.Instant.now().plus(Duration.ofMinutes(50)));

		long cancelled = fixture().queue().enqueue(Job.of("work", 4).delay(Duration.ofHours(1)));
		assertThat(fixture().queue().cancel(cancelled)).isTrue();
		int before = fixture().count("1 = 1");
		assertThatThrownBy(() -> fixture().queue().enqueue(Job.of("work", 5).after(cancelled)))
			.isInstanceOf(InvalidJobException.class)
			.hasMessageContaining("CANCELLED");
		assertThat(fixture().count("1 = 1")).as("nothing written").isEqualTo(before);
		assertThatThrownBy(() -> Workflow.create().step("a", Job.of("work", 6), "a"))
			.isInstanceOf(InvalidJobException.class);
	}

	/**
	 * The limits docs/workflows.md gives: the graph view stops at {@link WorkflowGraph#MAX_JOBS}
	 * jobs and says so; the jobs of one call may run after at most
	 * {@link WorkflowStore#MAX_EARLIER_DEPENDENCIES} jobs enqueued before, and
	 * a call over it is refused with nothing written.
	 */
	@Test
	default void theGraphViewAndTheEarlierDependenciesOfOneCallHaveTheirLimits() {
		long root = fixture().queue().enqueue(Job.of("work", 0).delay(Duration.ofHours(1)));
		List<Job> dependents = new ArrayList<>();
		for (int i = 0; i < WorkflowGraph.MAX_JOBS + 50; i++) {
			dependents.add(Job.of("work", i).after(root));
		}
		fixture().queue().enqueueAll(dependents);
		WorkflowGraph graph = fixture().queue().graph(root).orElseThrow();
		assertThat(graph.jobs()).hasSize(WorkflowGraph.MAX_JOBS);
		assertThat(graph.truncated()).isTrue();

		List<Job> earlier = new ArrayList<>();
		for (int i = 0; i <= WorkflowStore.MAX_EARLIER_DEPENDENCIES; i++) {
			earlier.add(Job.of("work", i).delay(Duration.ofHours(1)));
		}
		List<Long> ids = fixture().queue().enqueueAll(earlier);
		List<Job> tooMany = new ArrayList<>();
		for (int from = 0; from < ids.size(); from += Job.MAX_DEPENDENCIES) {
			long[] after = ids.subList(from, Math.min(ids.size(), from + Job.MAX_DEPENDENCIES)).stream()
				.mapToLong(Long::longValue).toArray();
			tooMany.add(Job.of("work", from).after(after));
		}
		int before = fixture().count("1 = 1");
		assertThatThrownBy(() -> fixture().queue().enqueueAll(tooMany)).isInstanceOf(InvalidJobException.class)
			.hasMessageContaining(String.valueOf(WorkflowStore.MAX_EARLIER_DEPENDENCIES));
		assertThat(fixture().count("1 = 1")).as("nothing written").isEqualTo(before);
		assertThat(fixture().queue().enqueueAll(tooMany.subList(1, tooMany.size()))).as("one job fewer: 1,000")
			.hasSize(tooMany.size() - 1);
	}

	@Test
	default void aWorkflowIsWrittenWholeOrNotAtAllAndBadLinksAreRefusedBeforeAnythingIsWritten() {
		assertThatThrownBy(() -> Workflow.create().step("a", Job.of("work", 1), "b"))
			.isInstanceOf(InvalidJobException.class).hasMessageContaining("cycle");
		assertThatThrownBy(() -> Workflow.create().step("a", Job.of("work", 1)).step("a", Job.of("work", 2)))
			.isInstanceOf(InvalidJobException.class).hasMessageContaining("twice");
		long[] tooMany = new long[Job.MAX_DEPENDENCIES + 1];
		for (int i = 0; i < tooMany.length; i++) {
			tooMany[i] = i + 1;
		}
		assertThatThrownBy(() -> Job.of("work", 1).after(tooMany)).isInstanceOf(InvalidJobException.class);
		assertThatThrownBy(() -> Batch.of(List.of())).isInstanceOf(InvalidJobException.class);

		long failed = fixture().queue().enqueue(Job.of("work", null).maxAttempts(1));
		JobRecord claimed = claimAll("work").get(0);
		fixture().store().fail(new Lease(failed, claimed.leaseToken()), "broken");
		int before = fixture().count("1 = 1");
		assertThatThrownBy(() -> fixture().queue().enqueue(Job.of("work", null).after(987654321L)))
			.isInstanceOf(InvalidJobException.class).hasMessageContaining("No job 987654321");
		assertThatThrownBy(() -> fixture().queue().enqueue(Workflow.create()
			.step("one", Job.of("work", 1))
			.step("two", Job.of("work", 2).after(failed), "one")))
			.isInstanceOf(InvalidJobException.class).hasMessageContaining("FAILED");
		assertThatThrownBy(() -> fixture().queue().enqueue(Workflow.create()
			.step("one", Job.of("work", 1).uniqueKey("k"))
			.step("two", Job.of("work", 2).uniqueKey("k"), "one")))
			.isInstanceOf(DuplicateJobException.class);
		assertThat(fixture().count("1 = 1")).as("nothing written").isEqualTo(before);
		assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM " + table("queue_dependency"), Integer.class))
			.isZero();

		long runsAnyway = fixture().queue().enqueue(Job.of("work", null).after(failed)
			.onDependencyFailure(DependencyFailure.RUN));
		assertThat(fixture().status(runsAnyway)).isEqualTo(JobStatus.QUEUED);

		// Inside the caller's transaction: refused without spoiling it; rolled back with it.
		DataSource dataSource = fixture().database().dataSource();
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		long kept = transaction.execute((status) -> {
			long id = fixture().queue().enqueue("work", "kept");
			assertThatThrownBy(() -> fixture().queue().enqueue(Job.of("work", null).after(987654321L)))
				.isInstanceOf(InvalidJobException.class);
			return id;
		});
		assertThat(fixture().status(kept)).isEqualTo(JobStatus.QUEUED);
		int beforeRollback = fixture().count("1 = 1");
		transaction.executeWithoutResult((status) -> {
			fixture().queue().enqueue(Batch.of(List.of(Job.of("work", 1), Job.of("work", 2).after(kept)))
				.callback(Job.of("work", 3)));
			status.setRollbackOnly();
		});
		assertThat(fixture().count("1 = 1")).isEqualTo(beforeRollback);
		assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM " + table("queue_batch"), Integer.class))
			.isZero();
		assertThat(fixture().count("settles <> 0")).as("the rolled back dependent left its dependency plain")
			.isZero();
	}

	@Test
	default void aWaitingJobHoldsItsUniqueKeyAndShowsInTheCounts() {
		long first = fixture().queue().enqueue(Job.of("work", null).delay(Duration.ofHours(1)));
		fixture().queue().enqueue(Job.of("work", null).after(first).uniqueKey("only-one"));
		assertThatThrownBy(() -> fixture().queue().enqueue(Job.of("work", null).uniqueKey("only-one")))
			.isInstanceOf(DuplicateJobException.class);
		assertThat(fixture().store().countsByQueue())
			.anySatisfy((count) -> {
				assertThat(count.status()).isEqualTo(JobStatus.WAITING);
				assertThat(count.jobs()).isEqualTo(1);
			});
	}

	// --- migration

	/**
	 * V7 on a table with jobs in it: every job keeps its id, state and unique key, an id is
	 * never given again (not even a deleted one's), WAITING is accepted, and the claim and the
	 * unique keys work as before.
	 */
	@Test
	default void theWorkflowMigrationKeepsEveryJobAndItsIdsOnATableInUse() {
		try (TestDatabase.Isolated old = fixture().database().database().isolated()) {
			org.flywaydb.core.api.configuration.FluentConfiguration flyway = org.flywaydb.core.Flyway
				.configure(getClass().getClassLoader())
				.dataSource(old.dataSource())
				.locations("classpath:db/sqlqueue/" + old.dialect().name())
				.table(QueueSchemaMigrator.HISTORY_TABLE)
				.baselineOnMigrate(true)
				.baselineVersion("0")
				.target("6");
			if (old.schema() != null) {
				flyway.schemas(old.schema()).defaultSchema(old.schema()).createSchemas(true);
			}
			flyway.load().migrate();
			JobStore store = new JobStore(old.dataSource(), old.dialect(), old.schema());
			List<Long> ids = store.insert(List.of(new NewJob("default", "work", "1", 0, null, 0, 3, "kept", null),
					new NewJob("default", "work", "2", 0, null, 0, 3, null, null),
					new NewJob("default", "work", "3", 0, null, 0, 3, null, null)));
			org.springframework.jdbc.core.JdbcTemplate jdbc = new org.springframework.jdbc.core.JdbcTemplate(
					old.dataSource());
			String table = (old.schema() != null) ? old.schema() + ".queue_job" : "queue_job";
			jdbc.update("UPDATE " + table + " SET status = 'CANCELLED' WHERE id = ?", ids.get(1));
			jdbc.update("DELETE FROM " + table + " WHERE id = ?", ids.get(2));

			// V7, and the migrations after it.
			assertThat(new QueueSchemaMigrator(old.dataSource(), old.dialect(), old.schema()).migrate()).isPositive();
			assertThat(store.find(ids.get(0)).orElseThrow().uniqueKey()).isEqualTo("kept");
			assertThat(store.find(ids.get(1)).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
			JobQueue queue = new DefaultJobQueue(store, fixture().codec(), new io.sqlqueue.internal.handler.HandlerRegistry(),
					QueueFixture.FAST_RETRIES);
			assertThatThrownBy(() -> queue.enqueue(Job.of("work", 4).uniqueKey("kept")))
				.isInstanceOf(DuplicateJobException.class);
			long waiting = queue.enqueue(Job.of("work", 5).after(ids.get(0)));
			assertThat(waiting).as("no id given twice").isGreaterThan(ids.get(2));
			assertThat(store.find(waiting).orElseThrow().status()).isEqualTo(JobStatus.WAITING);
			JobRecord claimed = store.claim(new ClaimRequest("test", "default", List.of("work"), 10, 30_000)).get(0);
			assertThat(claimed.id()).isEqualTo(ids.get(0));
			assertThat(store.complete(List.of(success(claimed)))).containsExactly(true);
			assertThat(store.find(waiting).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
		}
	}

}
