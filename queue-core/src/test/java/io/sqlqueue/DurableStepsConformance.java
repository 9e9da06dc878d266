package io.sqlqueue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.sqlqueue.internal.manager.JobRunner;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.observation.JobObservations;
import io.sqlqueue.test.QueueFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Durable steps, sleeps and signals (docs/durable-steps.md) on every database: a step's body
 * runs once per job and later runs replay its record; a transactional step's writes commit
 * with its record or not at all; sleeps and waits for signals park the job without an attempt
 * and resume it, on another instance too; a signal finds its job whichever of the two commits
 * first; bad input changes nothing. Run by every {@link QueueConformanceTests}.
 */
interface DurableStepsConformance extends ConformanceSupport {

	private JobRunner runner() {
		return new JobRunner(fixture().store(), fixture().handlers(), fixture().codec(),
				QueueFixture.fastSettings().build(), fixture().listener(), JobObservations.NONE);
	}

	/**
	 * Waits until the job's wait (for a signal, or a sleep) is past its {@code wake_at} by the
	 * database's clock, the clock its next claim's time, which decides that the wait is up, is read by.
	 */
	private void awaitPastItsWait(long id) {
		String up = "SELECT COUNT(*) FROM " + table("queue_job_step") + " WHERE job_id = ? AND wake_at <= "
				+ isolatedDatabase().dialect().now();
		await().atMost(WAIT).pollInterval(Duration.ofMillis(10))
			.until(() -> fixture().jdbc().queryForObject(up, Integer.class, id) > 0);
	}

	private JobRunner.Ran runOnce(long id) {
		return runner().run(id).orElseThrow(() -> new AssertionError("job " + id + " is not queued"));
	}

	@Test
	default void aStepRunsOnceAndARetryReplaysItsRecord() {
		AtomicInteger charges = new AtomicInteger();
		handler("order", (payload, context) -> {
			String receipt = context.step("charge", String.class, () -> "receipt-" + charges.incrementAndGet());
			if (context.attempt() == 1) {
				throw new IllegalStateException("the mail server is down");
			}
			return receipt;
		});
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.RETRIED);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(charges).as("the charge's body ran once").hasValue(1);
		assertThat(fixture().job(id).result()).isEqualTo("\"receipt-1\"");
		List<JobStep> steps = fixture().queue().steps(id);
		assertThat(steps).extracting(JobStep::kind, JobStep::name, JobStep::result)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(JobStep.Kind.STEP, "charge", "\"receipt-1\""));
	}

	/**
	 * A run that lost its job (its instance died after the step returned) is re-claimed
	 * after the reaper: the new run replays the recorded step.
	 */
	@Test
	default void aReclaimedJobReplaysTheStepsItsLostRunRecorded() {
		AtomicInteger bodies = new AtomicInteger();
		handler("order", (payload, context) -> context.step("charge", Integer.class, bodies::incrementAndGet));
		long id = fixture().queue().enqueue("order", null);
		assertThat(claimAll("order")).extracting(JobRecord::id).containsExactly(id);
		fixture().store().steps().recordStep(id, "charge", "41");
		fixture().jdbc().update("UPDATE " + table("queue_job") + " SET lease_expires_at = run_at WHERE id = ?", id);
		assertThat(fixture().store().reapExpired(10, 5)).hasSize(1);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(bodies).as("the body whose record exists never ran").hasValue(0);
		assertThat(fixture().job(id).result()).isEqualTo("41");
	}

	@Test
	default void aTransactionalStepCommitsItsWritesWithItsRecordOrNeither() {
		fixture().jdbc().execute("CREATE TABLE effect (job_id BIGINT NOT NULL, step VARCHAR(16) NOT NULL)");
		AtomicInteger bodies = new AtomicInteger();
		handler("order", (payload, context) -> {
			context.transactionalStep("debit", () -> {
				fixture().jdbc().update("INSERT INTO effect (job_id, step) VALUES (?, 'debit')", context.jobId());
				if (bodies.incrementAndGet() == 1) {
					throw new IllegalStateException("fails after its write");
				}
			});
			if (context.attempt() == 2) {
				throw new IllegalStateException("fails after the step");
			}
			return "done";
		});
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.RETRIED);
		assertThat(fixture().count("id = " + id)).isOne();
		assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM effect", Integer.class))
			.as("the failed body's write rolled back").isZero();
		assertThat(fixture().queue().steps(id)).as("and it recorded nothing").isEmpty();
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.RETRIED);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(bodies).hasValue(2);
		assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM effect", Integer.class))
			.as("one effect over three runs").isOne();
	}

	/**
	 * A transactional step whose lease was lost before it committed (another worker took the
	 * job) rolls back its writes and records nothing.
	 */
	@Test
	default void aTransactionalStepThatLostItsLeaseLeavesNoEffect() {
		fixture().jdbc().execute("CREATE TABLE effect (job_id BIGINT NOT NULL)");
		handler("order", (payload, context) -> {
			// Another worker took the job (its new token), from outside any transaction of this run.
			Thread thief = new Thread(() -> fixture().jdbc()
				.update("UPDATE " + table("queue_job") + " SET lease_token = lease_token + 1 WHERE id = ?",
						context.jobId()));
			thief.start();
			thief.join();
			context.transactionalStep("debit",
					() -> fixture().jdbc().update("INSERT INTO effect (job_id) VALUES (?)", context.jobId()));
			return "done";
		});
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).as("the lease was lost: no outcome is recorded").isNull();
		assertThat(fixture().jdbc().queryForObject("SELECT COUNT(*) FROM effect", Integer.class)).isZero();
		assertThat(fixture().queue().steps(id)).isEmpty();
	}

	/**
	 * A sleep parks the job: QUEUED, due when the sleep ends, no attempt spent; a run before
	 * then parks it again; after it, the steps before the sleep replay and the rest runs.
	 */
	@Test
	default void aSleepParksTheJobWithoutAnAttemptAndResumesAfterIt() {
		AtomicInteger before = new AtomicInteger();
		AtomicInteger after = new AtomicInteger();
		handler("order", (payload, context) -> {
			context.step("before", before::incrementAndGet);
			context.sleep(Duration.ofHours(1));
			context.step("after", after::incrementAndGet);
			return "done";
		});
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		JobRecord parked = fixture().job(id);
		assertThat(parked.status()).isEqualTo(JobStatus.QUEUED);
		assertThat(parked.attempts()).as("no attempt spent").isZero();
		assertThat(parked.runAt()).isAfter(parked.updatedAt().plus(Duration.ofMinutes(59)));
		assertThat(runOnce(id).outcome()).as("woken early, it parks again").isEqualTo(JobOutcome.PARKED);
		assertThat(fixture().job(id).runAt()).isEqualTo(parked.runAt());
		fixture().store().steps().endSleeps(id);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(before).hasValue(1);
		assertThat(after).hasValue(1);
		assertThat(fixture().job(id).attempts()).isOne();
		assertThat(fixture().queue().steps(id)).extracting(JobStep::kind, JobStep::name)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(JobStep.Kind.STEP, "before"),
					org.assertj.core.groups.Tuple.tuple(JobStep.Kind.SLEEP, "1"),
					org.assertj.core.groups.Tuple.tuple(JobStep.Kind.STEP, "after"));
	}

	/**
	 * A parked job holds no room under its queue's concurrency limit while it waits (it is
	 * queued, not running): with room for one, a second job starts while the first sleeps.
	 */
	@Test
	default void aParkedJobHoldsNoRoomUnderAConcurrencyLimit() {
		handler("order", (payload, context) -> {
			context.sleep(Duration.ofHours(1));
			return "done";
		});
		fixture().flowControl().setLimit("default", io.sqlqueue.flow.Limit.concurrency(1));
		long first = fixture().queue().enqueue("order", null);
		long second = fixture().queue().enqueue("order", null);
		assertThat(runner().runDue("default", 10)).extracting((ran) -> ran.job().id(), JobRunner.Ran::outcome)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(first, JobOutcome.PARKED));
		assertThat(runner().runDue("default", 10)).as("the parked first leaves the room to the second")
			.extracting((ran) -> ran.job().id(), JobRunner.Ran::outcome)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(second, JobOutcome.PARKED));
	}

	/**
	 * Each resume of a parked job is a start, which its queue's rate limit counts: a job woken
	 * while the window is full waits for room like any other.
	 */
	@Test
	default void eachResumeOfAParkedJobIsAStartARateLimitCounts() {
		handler("order", (payload, context) -> {
			context.sleep(Duration.ofHours(1));
			return "done";
		});
		fixture().flowControl().setLimit("default", io.sqlqueue.flow.Limit.rate(2, Duration.ofHours(1)));
		long first = fixture().queue().enqueue("order", null);
		long second = fixture().queue().enqueue("order", null);
		assertThat(runner().runDue("default", 10)).extracting((ran) -> ran.job().id(), JobRunner.Ran::outcome)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(first, JobOutcome.PARKED),
					org.assertj.core.groups.Tuple.tuple(second, JobOutcome.PARKED));
		fixture().store().steps().wakeUp(first);
		assertThat(runner().runDue("default", 10)).as("two starts this hour: the woken job waits").isEmpty();
		fixture().flowControl().removeLimit("default");
		assertThat(runner().runDue("default", 10)).extracting((ran) -> ran.job().id(), JobRunner.Ran::outcome)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(first, JobOutcome.SUCCEEDED));
	}

	/** A parked job of a group keeps the group's later jobs waiting until it ends: groups run in order. */
	@Test
	default void aParkedJobOfAGroupHoldsBackTheGroup() {
		handler("order", (payload, context) -> {
			if ("first".equals(JSON.readValue(payload, String.class))) {
				context.sleep(Duration.ofHours(1));
			}
			return "done";
		});
		long first = fixture().queue().enqueue(Job.of("order", "first").groupKey("customer-1"));
		long second = fixture().queue().enqueue(Job.of("order", "second").groupKey("customer-1"));
		assertThat(runOnce(first).outcome()).isEqualTo(JobOutcome.PARKED);
		assertThat(claimAll("order")).as("the second waits for the parked first").isEmpty();
		fixture().store().steps().wakeUp(first);
		assertThat(claimAll("order")).extracting(JobRecord::id).containsExactly(first);
		assertThat(fixture().status(second)).isEqualTo(JobStatus.QUEUED);
	}

	/** A cancel asked for while the job ran ends it when it parks: it is never resumed. */
	@Test
	default void aJobWhoseCancelWasAskedForEndsCancelledWhenItParks() {
		handler("order", (payload, context) -> {
			assertThat(fixture().queue().cancel(context.jobId())).as("asked for").isTrue();
			context.sleep(Duration.ofHours(1));
			return "slept";
		});
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).as("told as it ended").isEqualTo(JobOutcome.CANCELLED);
		assertThat(fixture().status(id)).isEqualTo(JobStatus.CANCELLED);
		assertThat(fixture().job(id).finishedAt()).isNotNull();
	}

	/** A snooze gives the job back for later, from the top, without an attempt or a record. */
	@Test
	default void aSnoozeGivesTheJobBackWithoutAnAttempt() {
		AtomicInteger runs = new AtomicInteger();
		handler("poll", (payload, context) -> {
			if (runs.incrementAndGet() < 3) {
				context.snooze(Duration.ofMillis(10));
			}
			return runs.get();
		});
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue("poll", null);
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(fixture().job(id).attempts()).isOne();
		assertThat(fixture().job(id).result()).isEqualTo("3");
		assertThat(fixture().queue().steps(id)).isEmpty();
	}

	/**
	 * A job waits for a signal on one instance, which stops; the signal, sent while it is
	 * parked, wakes it, and another instance runs it to the end with the payload.
	 */
	@Test
	default void aSignalWakesAParkedJobOnAnotherInstance() throws Exception {
		AtomicInteger charges = new AtomicInteger();
		handler("order", (payload, context) -> {
			context.step("charge", charges::incrementAndGet);
			Optional<Greeting> callback = context.awaitSignal("paid", Greeting.class, Duration.ofHours(1));
			return callback.map(Greeting::name).orElse("timed out");
		});
		long id;
		try (HikariDataSource one = isolatedDatabase().newDataSource(4);
				HikariDataSource two = isolatedDatabase().newDataSource(4)) {
			Manager first = fixture().startInstance((s) -> s, one);
			id = fixture().queue().enqueue("order", null);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> fixture().queue().steps(id).stream().anyMatch((step) -> step.kind() == JobStep.Kind.SIGNAL)
						&& fixture().status(id) == JobStatus.QUEUED);
			first.stop();
			fixture().startInstance((s) -> s, two);
			fixture().queue().signal(id, "paid", new Greeting("provider", 1));
			// Well within the wait's hour: the signal woke it.
			awaitStatus(id, JobStatus.SUCCEEDED, Duration.ofSeconds(10));
		}
		assertThat(fixture().job(id).result()).isEqualTo("\"provider\"");
		assertThat(fixture().job(id).attempts()).isOne();
		assertThat(charges).hasValue(1);
		assertThat(fixture().queue().signals(id)).extracting(JobSignal::name).containsExactly("paid");
	}

	/** A signal sent before the job waits for it is kept: the wait returns it without parking. */
	@Test
	default void aSignalThatArrivesFirstIsKept() {
		handler("order", (payload, context) -> context.awaitSignal("paid", Integer.class, Duration.ofHours(1))
			.orElseThrow());
		long id = fixture().queue().enqueue("order", null);
		fixture().queue().signal(id, "paid", 7);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(fixture().job(id).result()).isEqualTo("7");
	}

	/**
	 * A signal sent as another type than the job awaits (the String "approved" for a record)
	 * fails the job at once, with an error that names the signal and the type: the signal
	 * stays as sent and a second one of the name is refused, so no retry could take it.
	 */
	@Test
	default void aSignalOfAnotherTypeThanAwaitedFailsTheJobWithoutRetries() {
		handler("order", (payload, context) -> context.awaitSignal("payment", Greeting.class, Duration.ofHours(1))
			.orElseThrow()
			.name());
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		fixture().queue().signal(id, "payment", "approved");
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.FAILED);
		JobRecord failed = fixture().job(id);
		assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
		assertThat(failed.attempts()).as("one attempt, no retries").isOne();
		assertThat(failed.lastError()).contains("The signal 'payment' of job " + id + " cannot be decoded as "
				+ Greeting.class.getName(), "sent as \"approved\"", "without retries")
			.doesNotContain("The result of job");
	}

	/**
	 * A wait that times out returns empty; the run fails right there (its retry policy
	 * applies), and the retry, run after the signal came late, reads it: nothing was recorded
	 * past the wait, so nothing rests on its having timed out. A signal in a transaction that
	 * rolls back is never delivered.
	 */
	@Test
	default void aSignalThatCameAfterItsWaitTimedOutCountsForARetryAndARolledBackOneIsNotDelivered() {
		handler("order", (payload, context) -> {
			Optional<Integer> paid = context.awaitSignal("paid", Integer.class, Duration.ofMillis(50));
			if (context.attempt() == 1) {
				throw new IllegalStateException("fails after the wait");
			}
			return paid.orElse(-1);
		});
		long id = fixture().queue().enqueue("order", null);
		TransactionTemplate caller = new TransactionTemplate(
				new DataSourceTransactionManager(isolatedDatabase().dataSource()));
		caller.executeWithoutResult((status) -> {
			fixture().queue().signal(id, "paid", 1);
			status.setRollbackOnly();
		});
		assertThat(fixture().queue().signals(id)).isEmpty();
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		awaitPastItsWait(id);
		assertThat(runOnce(id).outcome()).as("timed out, then failed").isEqualTo(JobOutcome.RETRIED);
		fixture().queue().signal(id, "paid", 2);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(fixture().job(id).result()).as("the late signal counts").isEqualTo("2");
		assertThat(fixture().queue().steps(id)).singleElement().satisfies((wait) -> {
			assertThat(wait.kind()).isEqualTo(JobStep.Kind.SIGNAL);
			assertThat(wait.timedOut()).as("not timed out after all").isFalse();
		});
	}

	/**
	 * A run that found its wait timed out and went on to record a step (which may rest on
	 * the empty answer) decided it for good: every later run finds the wait timed out, even
	 * with the signal there.
	 */
	@Test
	default void aTimedOutWaitThatTheRunWentOnFromStaysTimedOut() {
		AtomicInteger decisions = new AtomicInteger();
		handler("order", (payload, context) -> {
			int paid = context.awaitSignal("paid", Integer.class, Duration.ofMillis(50)).orElse(-1);
			int decided = context.step("decide", Integer.class, () -> {
				decisions.incrementAndGet();
				return paid;
			});
			if (context.attempt() == 1) {
				throw new IllegalStateException("fails after its decision");
			}
			return paid + "/" + decided;
		});
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		awaitPastItsWait(id);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.RETRIED);
		fixture().queue().signal(id, "paid", 2);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(fixture().job(id).result()).as("the first run's finding stands").isEqualTo("\"-1/-1\"");
		assertThat(decisions).hasValue(1);
		assertThat(fixture().queue().steps(id)).first().satisfies((wait) -> assertThat(wait.timedOut()).isTrue());
	}

	/**
	 * An order whose payment callback came after its wait timed out, and which failed for good
	 * there: the callback is kept for the failed job (a signal to it is stored), and an
	 * operator's retry of the job reads it and completes the order.
	 */
	@Test
	default void anOperatorsRetryCompletesAnOrderWhoseCallbackCameLate() {
		AtomicInteger charges = new AtomicInteger();
		fixture().register(new io.sqlqueue.handler.HandlerDefinition("order", "default", 1, null, java.util.Set.of(), (payload, context) -> {
			context.step("charge", charges::incrementAndGet);
			return context.awaitSignal("paid", Integer.class, Duration.ofMillis(50))
				.orElseThrow(() -> new IllegalStateException("no payment callback in time"));
		}, "order"));
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		awaitPastItsWait(id);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.FAILED);
		assertThat(fixture().job(id).lastError()).contains("no payment callback in time");
		fixture().queue().signal(id, "paid", 5);
		assertThat(fixture().queue().retry(id)).isTrue();
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(fixture().job(id).result()).isEqualTo("5");
		assertThat(charges).hasValue(1);
	}

	/**
	 * The signal's transaction writes while the job still runs (its wake finds nothing
	 * parked), the job then parks without seeing the uncommitted signal, and only then does
	 * the signal commit: the wake after its commit finds the job parked, so it resumes now
	 * rather than at its wait's timeout.
	 */
	@Test
	default void aSignalCommittedAfterTheJobParkedStillWakesIt() throws Exception {
		assumeRowLocks();
		CountDownLatch signalled = new CountDownLatch(1);
		CountDownLatch running = new CountDownLatch(1);
		handler("order", (payload, context) -> {
			running.countDown();
			if (!signalled.await(10, TimeUnit.SECONDS)) {
				throw new IllegalStateException("no signal written");
			}
			return context.awaitSignal("paid", Integer.class, Duration.ofHours(1)).orElse(-1);
		});
		fixture().startManager((s) -> s);
		long id = fixture().queue().enqueue("order", null);
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
		TransactionTemplate caller = new TransactionTemplate(
				new DataSourceTransactionManager(isolatedDatabase().dataSource()));
		AtomicReference<Boolean> parkedBeforeCommit = new AtomicReference<>();
		caller.executeWithoutResult((status) -> {
			fixture().queue().signal(id, "paid", 9);
			signalled.countDown();
			// Read from another thread: on this one, reads join the signal's transaction and its snapshot.
			java.util.concurrent.CompletableFuture.runAsync(() -> {
				await().atMost(Duration.ofSeconds(10))
					.until(() -> fixture().queue().steps(id).size() == 1 && fixture().status(id) == JobStatus.QUEUED);
				JobRecord parked = fixture().job(id);
				parkedBeforeCommit.set(parked.runAt().isAfter(parked.updatedAt().plusSeconds(60)));
			}).join();
		});
		assertThat(parkedBeforeCommit.get()).as("parked until the wait's timeout before the signal committed").isTrue();
		awaitStatus(id, JobStatus.SUCCEEDED, Duration.ofSeconds(10));
		assertThat(fixture().job(id).result()).isEqualTo("9");
	}

	@Test
	default void badSignalsAreRefusedAndChangeNothing() {
		handler("order", (payload, context) -> "done");
		long id = fixture().queue().enqueue("order", null);
		assertThatExceptionOfType(NoSuchJobException.class).isThrownBy(() -> fixture().queue().signal(id + 1000, "a", 1));
		assertThatExceptionOfType(InvalidJobException.class).isThrownBy(() -> fixture().queue().signal(id, "", 1))
			.withMessageContaining("signal name");
		assertThatExceptionOfType(InvalidJobException.class)
			.isThrownBy(() -> fixture().queue().signal(id, "a", "x".repeat(fixture().codec().maxPayloadBytes() + 1)))
			.withMessageContaining("over the limit");
		assertThatExceptionOfType(InvalidJobException.class).isThrownBy(() -> fixture().queue().signal(id, "a", null))
			.withMessageContaining("needs a payload");
		fixture().queue().signal(id, "a", 1);
		assertThatIllegalStateException().isThrownBy(() -> fixture().queue().signal(id, "a", 2))
			.withMessageContaining("already has a signal 'a'");
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThatIllegalStateException().isThrownBy(() -> fixture().queue().signal(id, "b", 1))
			.withMessageContaining("SUCCEEDED");
		assertThat(fixture().queue().signals(id)).extracting(JobSignal::name, JobSignal::payload)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("a", "1"));
	}

	/**
	 * A context kept past its handler's return, a park in a transactional handler or in a
	 * step's body, and nested steps: each throws at once and records nothing.
	 */
	@Test
	default void stepsAndParksOutsideTheirPlaceThrowAtOnce() {
		AtomicReference<JobContext> kept = new AtomicReference<>();
		AtomicReference<Throwable> nested = new AtomicReference<>();
		handler("keeps", (payload, context) -> {
			kept.set(context);
			try {
				context.step("outer", () -> context.step("inner", () -> {
				}));
			}
			catch (IllegalStateException ex) {
				nested.set(ex);
			}
			return "done";
		});
		transactionalHandler("tx", (payload, context) -> {
			context.sleep(Duration.ofSeconds(1));
			return "slept";
		});
		long keeps = fixture().queue().enqueue("keeps", null);
		long tx = fixture().queue().enqueue("tx", null);
		assertThat(runOnce(keeps).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(nested.get()).hasMessageContaining("steps do not nest");
		assertThatIllegalStateException().isThrownBy(() -> kept.get().step("late", () -> {
		})).withMessageContaining("has returned");
		assertThatIllegalStateException().isThrownBy(() -> kept.get().sleep(Duration.ofSeconds(1)));
		assertThat(fixture().queue().steps(keeps)).isEmpty();
		assertThat(runOnce(tx).outcome()).isEqualTo(JobOutcome.RETRIED);
		assertThat(fixture().job(tx).lastError()).contains("is transactional");
		assertThat(fixture().queue().steps(tx)).isEmpty();
	}

	/** A step over the size limit fails its attempt and is not recorded; a record that does not decode fails it too. */
	@Test
	default void stepResultsOverTheLimitOrOfAnotherTypeFailTheAttempt() {
		handler("big", (payload, context) -> context.step("blob", String.class,
				() -> "x".repeat(JobContext.MAX_STEP_RESULT_BYTES)));
		handler("typed", (payload, context) -> context.step("n", Integer.class, () -> 1));
		long big = fixture().queue().enqueue("big", null);
		assertThat(runOnce(big).outcome()).isEqualTo(JobOutcome.RETRIED);
		assertThat(fixture().job(big).lastError()).contains("JobContext.MAX_STEP_RESULT_BYTES");
		assertThat(fixture().queue().steps(big)).isEmpty();
		long typed = fixture().queue().enqueue("typed", null);
		fixture().store().steps().recordStep(typed, "n", "\"not a number\"");
		assertThat(runOnce(typed).outcome()).isEqualTo(JobOutcome.RETRIED);
		assertThat(fixture().job(typed).lastError()).contains("cannot be decoded as java.lang.Integer");
	}

	/**
	 * A transactional step in a transactional handler joins the handler's transaction: its
	 * writes and record commit with the job's completion, or roll back with a failure.
	 */
	@Test
	default void aTransactionalStepInATransactionalHandlerCommitsWithTheHandler() {
		fixture().jdbc().execute("CREATE TABLE effect (job_id BIGINT NOT NULL, attempt INT NOT NULL)");
		transactionalHandler("pay", (payload, context) -> {
			context.step("plain", () -> {
			});
			context.transactionalStep("debit", () -> fixture().jdbc()
				.update("INSERT INTO effect (job_id, attempt) VALUES (?, ?)", context.jobId(), context.attempt()));
			if (context.attempt() == 1) {
				throw new IllegalStateException("fails after its steps");
			}
			return "paid";
		});
		long id = fixture().queue().enqueue("pay", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.RETRIED);
		assertThat(fixture().queue().steps(id)).as("rolled back with the handler").isEmpty();
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(fixture().jdbc().queryForList("SELECT attempt FROM effect", Integer.class)).containsExactly(2);
		assertThat(fixture().queue().steps(id)).extracting(JobStep::name).containsExactlyInAnyOrder("plain", "debit");
	}

	/**
	 * A run that had lost the job records a step while the new run's body for it runs: the
	 * new run returns the record, so every run from then on sees one result.
	 */
	@Test
	default void aStepRecordedFirstByAnotherRunReturnsThatRecord() {
		handler("order", (payload, context) -> {
			String receipt = context.step("charge", String.class, () -> {
				Thread zombie = new Thread(
						() -> fixture().store().steps().recordStep(context.jobId(), "charge", "\"zombie's\""));
				zombie.start();
				zombie.join();
				return "mine";
			});
			return receipt;
		});
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(fixture().job(id).result()).isEqualTo("\"zombie's\"");
		assertThat(fixture().job(id).attempts()).isOne();
	}

	/** Parks longer than JobContext.MAX_PARK, or of a negative length, are refused and record nothing. */
	@Test
	default void parksOfNoLengthOrTooLongAreRefused() {
		AtomicReference<String> refused = new AtomicReference<>("");
		handler("order", (payload, context) -> {
			for (Runnable park : List.<Runnable>of(() -> context.sleep(Duration.ofDays(365L * 20_000)),
					() -> context.sleep(Duration.ofSeconds(-1)),
					() -> context.sleepUntil(java.time.Instant.now().plus(Duration.ofDays(40_000))),
					() -> context.snooze(JobContext.MAX_PARK.plusSeconds(1)),
					() -> context.awaitSignal("paid", Integer.class, Duration.ZERO),
					() -> context.awaitSignal("paid", Void.class, Duration.ofHours(1)))) {
				try {
					park.run();
				}
				catch (IllegalArgumentException ex) {
					refused.set(refused.get() + "|" + ex.getMessage());
				}
			}
			return "done";
		});
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(refused.get().split("\\|")).as(refused.get()).hasSize(7);
		assertThat(fixture().queue().steps(id)).isEmpty();
	}

	/**
	 * A wake never waits for a caller's open transaction that sent the signal (on MariaDB a
	 * repeatable read's UPDATE would wait for the signal row's insert): it finds nothing to
	 * wake, and the wake after that transaction's commit does.
	 */
	@Test
	default void aWakeDoesNotWaitForTheSignalOfAnOpenTransaction() {
		assumeRowLocks();
		handler("order", (payload, context) -> "done");
		long id = fixture().queue().enqueue("order", null);
		TransactionTemplate caller = new TransactionTemplate(
				new DataSourceTransactionManager(isolatedDatabase().dataSource()));
		caller.executeWithoutResult((status) -> {
			fixture().queue().signal(id, "paid", 1);
			assertThat(java.util.concurrent.CompletableFuture
				.supplyAsync(() -> fixture().store().steps().wake(id, "paid", "default"))
				.orTimeout(10, TimeUnit.SECONDS)
				.join()).as("nothing parked to wake, and no wait").isFalse();
		});
		assertThat(fixture().queue().signals(id)).hasSize(1);
	}

	/** A Spring transaction on the test's data source, as a handler's {@code @Transactional} would open. */
	private TransactionTemplate springTransaction() {
		return new TransactionTemplate(new DataSourceTransactionManager(isolatedDatabase().dataSource()));
	}

	/**
	 * SQLite has one writer at a time: a record written in a transaction of its own while the
	 * handler's transaction may hold the write lock would wait for it, so steps and parks there
	 * are refused; the attempt fails with why.
	 */
	private boolean refusedOnSqlite(long id) {
		if (isolatedDatabase().dialect().supports(io.sqlqueue.internal.store.ClaimMethod.LOCK_THEN_UPDATE)) {
			return false;
		}
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.RETRIED);
		assertThat(fixture().job(id).lastError()).contains("SQLite").contains("transaction");
		assertThat(fixture().queue().steps(id)).isEmpty();
		return true;
	}

	/**
	 * A handler whose work Spring runs in a transaction (its {@code @Transactional}, a
	 * {@code TransactionTemplate}) steps, then sleeps: the park rolls that transaction back, but
	 * the records were written in transactions of their own, so the job parks, and resumes
	 * without running the step again.
	 */
	@Test
	default void aStepThenASleepInASpringTransactionRunsTheStepOnceAndParks() {
		AtomicInteger charges = new AtomicInteger();
		handler("order", (payload, context) -> springTransaction().execute((status) -> {
			try {
				String receipt = context.step("charge", String.class, () -> "receipt-" + charges.incrementAndGet());
				context.sleep(Duration.ofHours(1));
				return receipt;
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}));
		long id = fixture().queue().enqueue("order", null);
		if (refusedOnSqlite(id)) {
			return;
		}
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		JobRecord parked = fixture().job(id);
		assertThat(parked.status()).isEqualTo(JobStatus.QUEUED);
		assertThat(parked.runAt()).isAfter(parked.updatedAt().plus(Duration.ofMinutes(59)));
		assertThat(fixture().queue().steps(id)).extracting(JobStep::kind, JobStep::name)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(JobStep.Kind.STEP, "charge"),
					org.assertj.core.groups.Tuple.tuple(JobStep.Kind.SLEEP, "1"));
		fixture().store().steps().endSleeps(id);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(charges).as("the step's body ran once").hasValue(1);
		assertThat(fixture().job(id).result()).isEqualTo("\"receipt-1\"");
		assertThat(fixture().job(id).attempts()).isOne();
	}

	/** As above, with a wait for a signal: the signal wakes the parked job, which ends with its payload. */
	@Test
	default void aStepThenAWaitForASignalInASpringTransactionRunsTheStepOnceAndParks() {
		AtomicInteger charges = new AtomicInteger();
		handler("order", (payload, context) -> springTransaction().execute((status) -> {
			try {
				context.step("charge", charges::incrementAndGet);
				return context.awaitSignal("paid", Integer.class, Duration.ofHours(1)).orElse(-1);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}));
		long id = fixture().queue().enqueue("order", null);
		if (refusedOnSqlite(id)) {
			return;
		}
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		assertThat(fixture().status(id)).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().queue().steps(id)).extracting(JobStep::kind, JobStep::name)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(JobStep.Kind.STEP, "charge"),
					org.assertj.core.groups.Tuple.tuple(JobStep.Kind.SIGNAL, "paid"));
		fixture().queue().signal(id, "paid", 7);
		JobRecord woken = fixture().job(id);
		assertThat(woken.runAt()).as("the signal woke it").isBeforeOrEqualTo(woken.updatedAt());
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(charges).as("the step's body ran once").hasValue(1);
		assertThat(fixture().job(id).result()).isEqualTo("7");
	}

	/**
	 * A handler under a Spring transaction that fails after its steps: the transaction rolls
	 * back, the steps' records stay, and the retry runs neither body again. A plain step's
	 * writes made in that transaction rolled back with it (its record did not); a transactional
	 * step's writes committed with its record, in a transaction of its own.
	 */
	@Test
	default void aStepInASpringTransactionThatRollsBackDoesNotRunAgain() {
		fixture().jdbc().execute("CREATE TABLE effect (job_id BIGINT NOT NULL, step VARCHAR(16) NOT NULL)");
		AtomicInteger plain = new AtomicInteger();
		AtomicInteger transactional = new AtomicInteger();
		handler("order", (payload, context) -> springTransaction().execute((status) -> {
			try {
				context.step("plain", () -> {
					plain.incrementAndGet();
					fixture().jdbc().update("INSERT INTO effect (job_id, step) VALUES (?, 'plain')", context.jobId());
				});
				context.transactionalStep("debit", () -> {
					transactional.incrementAndGet();
					fixture().jdbc().update("INSERT INTO effect (job_id, step) VALUES (?, 'debit')", context.jobId());
				});
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
			if (context.attempt() == 1) {
				throw new IllegalStateException("fails after its steps");
			}
			return "done";
		}));
		long id = fixture().queue().enqueue("order", null);
		if (refusedOnSqlite(id)) {
			return;
		}
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.RETRIED);
		assertThat(fixture().queue().steps(id)).extracting(JobStep::name).containsExactly("plain", "debit");
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(plain).as("the plain step ran once").hasValue(1);
		assertThat(transactional).as("the transactional step ran once").hasValue(1);
		assertThat(fixture().jdbc().queryForList("SELECT step FROM effect", String.class))
			.as("the plain step's write rolled back with the handler's transaction").containsExactly("debit");
	}

	/**
	 * A park whose record is not there (deleted here between the sleep's record and its park)
	 * never leaves the job running for the reaper: it is queued again, due at once, and its
	 * next run records the sleep again and parks on it.
	 */
	@Test
	default void aParkWhoseRecordIsMissingQueuesTheJobAgainAtOnce() {
		AtomicInteger runs = new AtomicInteger();
		handler("order", (payload, context) -> {
			try {
				context.sleep(Duration.ofHours(1));
			}
			catch (Error park) {
				if (runs.incrementAndGet() == 1) {
					fixture().jdbc().update("DELETE FROM " + table("queue_job_step") + " WHERE job_id = ?",
							context.jobId());
				}
				throw park;
			}
			return "slept";
		});
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		JobRecord requeued = fixture().job(id);
		assertThat(requeued.status()).as("not left running for the reaper").isEqualTo(JobStatus.QUEUED);
		assertThat(requeued.attempts()).isZero();
		assertThat(requeued.runAt()).as("due at once").isBeforeOrEqualTo(requeued.updatedAt());
		assertThat(fixture().queue().steps(id)).isEmpty();
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		JobRecord parked = fixture().job(id);
		assertThat(parked.runAt()).isAfter(parked.updatedAt().plus(Duration.ofMinutes(59)));
		assertThat(fixture().queue().steps(id)).extracting(JobStep::kind).containsExactly(JobStep.Kind.SLEEP);
	}

	/**
	 * Steps called from threads of the handler's own run their bodies at the same time (none
	 * waits for another's body) and are each recorded once; one step called from two threads at
	 * once runs its body once, and both get its result; a park from another thread, or from the
	 * handler's while a step of another thread runs, is refused. The retry replays every step.
	 */
	@Test
	default void stepsFromOtherThreadsOfOneRunRunTheirBodiesAtOnceAndAreRecordedOnce() throws Exception {
		int parts = 4;
		AtomicInteger bodies = new AtomicInteger();
		AtomicInteger shared = new AtomicInteger();
		List<String> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
		java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(parts + 2);
		try {
			handler("fan-out", (payload, context) -> {
				java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(parts);
				List<java.util.concurrent.CompletableFuture<Integer>> results = new java.util.ArrayList<>();
				for (int i = 0; i < parts; i++) {
					int part = i;
					results.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> step(context, "part-" + part, () -> {
						bodies.incrementAndGet();
						// Every body waits here for the others: they run at the same time, or not at all.
						together.await(10, TimeUnit.SECONDS);
						return part;
					}), threads));
				}
				for (int i = 0; i < 2; i++) {
					results.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> step(context, "shared", () -> {
						shared.incrementAndGet();
						Thread.sleep(200);
						return 100;
					}), threads));
				}
				int sum = results.stream().mapToInt(java.util.concurrent.CompletableFuture::join).sum();
				if (context.attempt() > 1) {
					return sum + step(context, "slow", () -> -1);
				}
				try {
					java.util.concurrent.CompletableFuture.runAsync(() -> context.sleep(Duration.ofHours(1)), threads)
						.join();
				}
				catch (java.util.concurrent.CompletionException ex) {
					refused.add(String.valueOf(ex.getCause()));
				}
				CountDownLatch slowRuns = new CountDownLatch(1);
				CountDownLatch release = new CountDownLatch(1);
				java.util.concurrent.CompletableFuture<Integer> slow = java.util.concurrent.CompletableFuture
					.supplyAsync(() -> step(context, "slow", () -> {
						slowRuns.countDown();
						return release.await(10, TimeUnit.SECONDS) ? 1000 : -1;
					}), threads);
				assertThat(slowRuns.await(10, TimeUnit.SECONDS)).isTrue();
				try {
					context.sleep(Duration.ofHours(1));
				}
				catch (IllegalStateException ex) {
					refused.add(String.valueOf(ex));
				}
				release.countDown();
				assertThat(slow.join()).isEqualTo(1000);
				throw new IllegalStateException("fails after its steps");
			});
			long id = fixture().queue().enqueue("fan-out", null);
			assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.RETRIED);
			assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
			assertThat(bodies).as("each part's body ran once").hasValue(parts);
			assertThat(shared).as("the step of two threads ran its body once").hasValue(1);
			assertThat(fixture().job(id).result()).isEqualTo(String.valueOf(0 + 1 + 2 + 3 + 100 + 100 + 1000));
			assertThat(fixture().queue().steps(id)).extracting(JobStep::name)
				.containsExactlyInAnyOrder("part-0", "part-1", "part-2", "part-3", "shared", "slow");
			assertThat(refused).hasSize(2);
			assertThat(refused.get(0)).contains("IllegalStateException").contains("only from the thread that runs its handler");
			assertThat(refused.get(1)).contains("IllegalStateException").contains("while steps [slow] run on other threads");
		}
		finally {
			threads.shutdownNow();
		}
	}

	/**
	 * The steps of a transactional handler join its transaction, which is its thread's: a step
	 * from another thread is refused, and records nothing.
	 */
	@Test
	default void aStepFromAnotherThreadOfATransactionalHandlerIsRefused() {
		AtomicReference<Throwable> refused = new AtomicReference<>();
		transactionalHandler("tx", (payload, context) -> {
			try {
				java.util.concurrent.CompletableFuture.supplyAsync(() -> step(context, "elsewhere", () -> 1)).join();
			}
			catch (java.util.concurrent.CompletionException ex) {
				refused.set(ex.getCause());
			}
			return context.step("here", Integer.class, () -> 2);
		});
		long id = fixture().queue().enqueue("tx", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(refused.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("is transactional");
		assertThat(fixture().queue().steps(id)).extracting(JobStep::name).containsExactly("here");
	}

	/** {@code context.step} for a future's lambda, which cannot throw checked exceptions. */
	private static int step(JobContext context, String name, JobContext.StepBody<Integer> body) {
		try {
			return java.util.Objects.requireNonNull(context.step(name, Integer.class, body));
		}
		catch (Exception ex) {
			throw new java.util.concurrent.CompletionException(ex);
		}
	}

	/**
	 * The wake of a signal meets the parked job's row held by another transaction (an
	 * operator's, a caller's that changed the job) for longer than its bounded lock wait: it is
	 * tried again later, so the job is due soon after that transaction ends, not at its wait's
	 * timeout an hour on.
	 */
	@Test
	default void aSignalWhoseWakeMeetsTheJobsRowHeldWakesItOnceTheRowIsFree() throws Exception {
		assumeRowLocks();
		handler("order", (payload, context) -> context.awaitSignal("paid", Integer.class, Duration.ofHours(1))
			.orElse(-1));
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		java.util.concurrent.CompletableFuture<Void> holder = java.util.concurrent.CompletableFuture
			.runAsync(() -> springTransaction().executeWithoutResult((status) -> {
				fixture().jdbc().update("UPDATE " + table("queue_job") + " SET priority = priority + 1 WHERE id = ?", id);
				held.countDown();
				try {
					release.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}));
		assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
		try {
			fixture().queue().signal(id, "paid", 3);
			assertThat(fixture().job(id).runAt()).as("the wake could not wait for the held row")
				.isAfter(java.time.Instant.now().plus(Duration.ofMinutes(30)));
		}
		finally {
			release.countDown();
		}
		holder.get(10, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(15))
			.until(() -> fixture().job(id).runAt().isBefore(java.time.Instant.now().plus(Duration.ofMinutes(1))));
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(fixture().job(id).result()).isEqualTo("3");
	}

	/**
	 * The handler changed while a job was parked (issue 40): "v1" charged in step
	 * {@code charge} and waited; "v2" calls the step {@code charge-card}. The replay stops at
	 * that call, before its body runs (the card is not charged twice), and the job fails at
	 * once, without its remaining attempts, with an error that names the record and the call.
	 */
	@Test
	default void aRenamedStepStopsTheReplayBeforeItsBodyRuns() {
		java.util.concurrent.atomic.AtomicBoolean v2 = new java.util.concurrent.atomic.AtomicBoolean();
		AtomicInteger charges = new AtomicInteger();
		handler("order", (payload, context) -> {
			String receipt = context.step(v2.get() ? "charge-card" : "charge", String.class,
					() -> "receipt-" + charges.incrementAndGet());
			context.awaitSignal("go", Boolean.class, Duration.ofHours(1));
			return receipt;
		});
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		v2.set(true);
		fixture().queue().signal(id, "go", true);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.FAILED);
		assertThat(charges).as("the renamed step's body did not run").hasValue(1);
		JobRecord failed = fixture().job(id);
		assertThat(failed.attempts()).as("failed at once, no retry spent").isOne();
		assertThat(failed.lastError()).contains("ReplayMismatchException")
			.contains("record 1 is step 'charge'")
			.contains("this run's first durable call is step 'charge-card', which has no record");
		assertThat(fixture().queue().steps(id)).extracting(JobStep::kind, JobStep::name)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(JobStep.Kind.STEP, "charge"),
					org.assertj.core.groups.Tuple.tuple(JobStep.Kind.SIGNAL, "go"));
	}

	/**
	 * "v2" no longer calls the recorded step {@code reserve}: the replay stops before the next
	 * call that would run a body, and a run that returns without replaying it fails too.
	 */
	@Test
	default void aRemovedStepStopsTheReplayBeforeTheNextBodyRuns() {
		java.util.concurrent.atomic.AtomicBoolean v2 = new java.util.concurrent.atomic.AtomicBoolean();
		List<String> bodies = new java.util.concurrent.CopyOnWriteArrayList<>();
		handler("order", (payload, context) -> {
			context.step("charge", () -> bodies.add("charge"));
			if (!v2.get()) {
				context.step("reserve", () -> bodies.add("reserve"));
			}
			context.awaitSignal("go", Boolean.class, Duration.ofHours(1));
			if ("ships".equals(JSON.readValue(payload, String.class))) {
				context.step("ship", () -> bodies.add("ship"));
			}
			return "done";
		});
		long ships = fixture().queue().enqueue("order", "ships");
		long ends = fixture().queue().enqueue("order", "ends");
		assertThat(runOnce(ships).outcome()).isEqualTo(JobOutcome.PARKED);
		assertThat(runOnce(ends).outcome()).isEqualTo(JobOutcome.PARKED);
		v2.set(true);
		fixture().queue().signal(ships, "go", true);
		fixture().queue().signal(ends, "go", true);
		assertThat(runOnce(ships).outcome()).isEqualTo(JobOutcome.FAILED);
		assertThat(fixture().job(ships).lastError()).contains("record 2 is step 'reserve'")
			.contains("this run's third durable call is step 'ship', which has no record");
		assertThat(runOnce(ends).outcome()).as("returned without replaying a record").isEqualTo(JobOutcome.FAILED);
		assertThat(fixture().job(ends).lastError()).contains("record 2 is step 'reserve'")
			.contains("did not replay before its handler returned");
		assertThat(bodies).as("no body ran under v2").containsExactly("charge", "reserve", "charge", "reserve");
	}

	/**
	 * "v2" calls a new step before a recorded sleep: the replay stops at the new step, before
	 * its body runs, as the sleep it should have met first is still to be replayed.
	 */
	@Test
	default void aStepInsertedBeforeARecordedOneStopsTheReplayBeforeItsBodyRuns() {
		java.util.concurrent.atomic.AtomicBoolean v2 = new java.util.concurrent.atomic.AtomicBoolean();
		AtomicInteger inserted = new AtomicInteger();
		handler("order", (payload, context) -> {
			context.step("charge", () -> {
			});
			if (v2.get()) {
				context.step("check-fraud", inserted::incrementAndGet);
			}
			context.sleep(Duration.ofHours(1));
			context.step("ship", () -> {
			});
			return "done";
		});
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		v2.set(true);
		fixture().store().steps().wakeUp(id);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.FAILED);
		assertThat(inserted).as("the inserted step's body did not run").hasValue(0);
		assertThat(fixture().job(id).lastError()).contains("record 2 is sleep '1'")
			.contains("this run's second durable call is step 'check-fraud', which has no record");
		assertThat(fixture().queue().steps(id)).extracting(JobStep::name).containsExactly("charge", "1");
	}

	/**
	 * Records are replayed in the order the handler's thread wrote them: "v2" swaps two steps
	 * (both replayed, so no body would run) and the replay stops at the second. A sleep added
	 * before a recorded one takes the recorded sleep's number (sleeps are told apart by their
	 * order), and is found out the same way.
	 */
	@Test
	default void reorderedCallsStopTheReplay() {
		java.util.concurrent.atomic.AtomicBoolean v2 = new java.util.concurrent.atomic.AtomicBoolean();
		handler("swap", (payload, context) -> {
			for (String name : v2.get() ? List.of("b", "a") : List.of("a", "b")) {
				context.step(name, () -> {
				});
			}
			context.sleep(Duration.ofHours(1));
			return "done";
		});
		handler("naps", (payload, context) -> {
			if (v2.get()) {
				context.sleep(Duration.ofMinutes(1));
			}
			context.sleep(Duration.ofHours(1));
			context.step("a", () -> {
			});
			context.sleep(Duration.ofHours(1));
			return "done";
		});
		long swap = fixture().queue().enqueue("swap", null);
		long naps = fixture().queue().enqueue("naps", null);
		assertThat(runOnce(swap).outcome()).isEqualTo(JobOutcome.PARKED);
		assertThat(runOnce(naps).outcome()).isEqualTo(JobOutcome.PARKED);
		fixture().store().steps().wakeUp(naps);
		assertThat(runOnce(naps).outcome()).isEqualTo(JobOutcome.PARKED);
		v2.set(true);
		fixture().store().steps().wakeUp(swap);
		fixture().store().steps().wakeUp(naps);
		assertThat(runOnce(swap).outcome()).isEqualTo(JobOutcome.FAILED);
		assertThat(fixture().job(swap).lastError()).contains("record 1 is step 'a' and record 2 is step 'b'")
			.contains("this run's second durable call is step 'a', after step 'b': the order changed");
		assertThat(runOnce(naps).outcome()).isEqualTo(JobOutcome.FAILED);
		assertThat(fixture().job(naps).lastError()).contains("record 2 is step 'a' and record 3 is sleep '2'")
			.contains("the order changed");
	}

	/**
	 * A handler that catches the mismatch and goes on cannot make the run succeed: every later
	 * durable call throws it again, and so does the handler's return.
	 */
	@Test
	default void aHandlerThatCatchesAMismatchStillFails() {
		java.util.concurrent.atomic.AtomicBoolean v2 = new java.util.concurrent.atomic.AtomicBoolean();
		List<String> caught = new java.util.concurrent.CopyOnWriteArrayList<>();
		handler("order", (payload, context) -> {
			for (String name : v2.get() ? List.of("charge-card", "ship") : List.of("charge")) {
				try {
					context.step(name, () -> {
					});
				}
				catch (ReplayMismatchException ex) {
					caught.add(name);
				}
			}
			context.sleep(Duration.ofHours(1));
			return "done";
		});
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		v2.set(true);
		fixture().store().steps().wakeUp(id);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.FAILED);
		assertThat(caught).containsExactly("charge-card", "ship");
		assertThat(fixture().job(id).lastError()).contains("record 1 is step 'charge'");
		assertThat(fixture().queue().steps(id)).extracting(JobStep::name).containsExactly("charge", "1");
	}

	/**
	 * The supported way to change a handler with jobs in flight: "v2" branches on
	 * {@code patched("charge-card")}. A job that "v1" parked past that point takes the old
	 * branch (its records go on past the marker without it) and records no marker; a job that
	 * starts under "v2" takes the new branch, and its marker is recorded, so its replay takes
	 * it again.
	 */
	@Test
	default void aPatchMarkerKeepsParkedJobsOnTheOldBranch() {
		java.util.concurrent.atomic.AtomicBoolean v2 = new java.util.concurrent.atomic.AtomicBoolean();
		AtomicInteger charges = new AtomicInteger();
		AtomicInteger cardCharges = new AtomicInteger();
		handler("order", (payload, context) -> {
			String receipt = (v2.get() && context.patched("charge-card"))
					? context.step("charge-card", String.class, () -> "card-" + cardCharges.incrementAndGet())
					: context.step("charge", String.class, () -> "charge-" + charges.incrementAndGet());
			context.awaitSignal("go", Boolean.class, Duration.ofHours(1));
			return receipt;
		});
		long old = fixture().queue().enqueue("order", null);
		assertThat(runOnce(old).outcome()).isEqualTo(JobOutcome.PARKED);
		v2.set(true);
		long young = fixture().queue().enqueue("order", null);
		assertThat(runOnce(young).outcome()).isEqualTo(JobOutcome.PARKED);
		fixture().queue().signal(old, "go", true);
		fixture().queue().signal(young, "go", true);
		assertThat(runOnce(old).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(runOnce(young).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(fixture().job(old).result()).as("the old branch, replayed").isEqualTo("\"charge-1\"");
		assertThat(fixture().job(young).result()).as("the new branch, replayed").isEqualTo("\"card-1\"");
		assertThat(charges).hasValue(1);
		assertThat(cardCharges).hasValue(1);
		assertThat(fixture().queue().steps(old)).extracting(JobStep::kind, JobStep::name)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(JobStep.Kind.STEP, "charge"),
					org.assertj.core.groups.Tuple.tuple(JobStep.Kind.SIGNAL, "go"));
		assertThat(fixture().queue().steps(young)).extracting(JobStep::kind, JobStep::name)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(JobStep.Kind.PATCH, "charge-card"),
					org.assertj.core.groups.Tuple.tuple(JobStep.Kind.STEP, "charge-card"),
					org.assertj.core.groups.Tuple.tuple(JobStep.Kind.SIGNAL, "go"));
	}

	/**
	 * Once no job can take the old branch, "v3" drops it and the {@code patched} call: a job
	 * that recorded the marker under "v2" replays without it (a marker nobody asks for is
	 * skipped).
	 */
	@Test
	default void aPatchMarkerThatTheCodeNoLongerAsksForIsSkipped() {
		java.util.concurrent.atomic.AtomicBoolean v3 = new java.util.concurrent.atomic.AtomicBoolean();
		AtomicInteger cardCharges = new AtomicInteger();
		handler("order", (payload, context) -> {
			if (!v3.get() && !context.patched("charge-card")) {
				throw new IllegalStateException("a new job takes the new branch");
			}
			String receipt = context.step("charge-card", String.class, () -> "card-" + cardCharges.incrementAndGet());
			context.sleep(Duration.ofHours(1));
			return receipt;
		});
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		v3.set(true);
		fixture().store().steps().wakeUp(id);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(fixture().job(id).result()).isEqualTo("\"card-1\"");
		assertThat(cardCharges).hasValue(1);
	}

	/**
	 * The operator's way out for a job that stopped on a mismatch: {@code retryFrom} deletes
	 * its records from the one named on and queues it again, and its run replays the records
	 * before and runs the rest under the new code. A record it does not have, or a job that has
	 * not failed, is refused and changes nothing.
	 */
	@Test
	default void anOperatorRetriesAJobThatStoppedOnAMismatchFromARecord() {
		java.util.concurrent.atomic.AtomicBoolean v2 = new java.util.concurrent.atomic.AtomicBoolean();
		List<String> bodies = new java.util.concurrent.CopyOnWriteArrayList<>();
		handler("order", (payload, context) -> {
			context.step("charge", () -> bodies.add("charge"));
			context.step(v2.get() ? "ship-v2" : "ship", () -> bodies.add(v2.get() ? "ship-v2" : "ship"));
			context.sleep(Duration.ofHours(1));
			return "done";
		});
		io.sqlqueue.admin.QueueAdmin admin = new io.sqlqueue.internal.admin.DefaultQueueAdmin(fixture().queue(),
				fixture().store(), null, null, null);
		long id = fixture().queue().enqueue("order", null);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		assertThat(admin.retryFrom(id, 2).refusal()).as("not failed").isEqualTo(io.sqlqueue.admin.Refusal.NOT_FAILED);
		v2.set(true);
		fixture().store().steps().wakeUp(id);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.FAILED);
		assertThat(fixture().job(id).lastError()).contains("record 2 is step 'ship'");
		io.sqlqueue.admin.AdminResult refused = admin.retryFrom(id, 4);
		assertThat(refused.refusal()).isEqualTo(io.sqlqueue.admin.Refusal.NO_SUCH_RECORD);
		assertThat(refused.message()).isEqualTo("Job " + id + " has 3 records; there is no record 4 to retry from");
		assertThat(fixture().status(id)).isEqualTo(JobStatus.FAILED);
		assertThat(fixture().queue().steps(id)).hasSize(3);
		io.sqlqueue.admin.AdminResult retried = admin.retryFrom(id, 2);
		assertThat(retried.done()).as(retried.message()).isTrue();
		assertThat(retried.status()).isEqualTo(JobStatus.QUEUED);
		assertThat(fixture().queue().steps(id)).extracting(JobStep::name).containsExactly("charge");
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.PARKED);
		fixture().store().steps().wakeUp(id);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(bodies).containsExactly("charge", "ship", "ship-v2");
		assertThat(admin.audit(1)).extracting(io.sqlqueue.admin.AuditEntry::action).containsExactly("retry-from");
	}

	/**
	 * The order of records is checked on the handler's thread: steps of other threads replay
	 * in any order, and one of them whose body failed on the first run runs it anew while its
	 * siblings are still to be replayed (here: before they are).
	 */
	@Test
	default void aStepOfAnotherThreadRunsItsBodyAnewWhileItsSiblingsAreStillToBeReplayed() throws Exception {
		AtomicInteger bodies = new AtomicInteger();
		java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(3);
		try {
			handler("fan-out", (payload, context) -> {
				CountDownLatch newBodyRan = new CountDownLatch(1);
				boolean retry = context.attempt() > 1;
				List<java.util.concurrent.CompletableFuture<Integer>> parts = new java.util.ArrayList<>();
				for (int i = 0; i < 3; i++) {
					int part = i;
					parts.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
						if (retry && part != 1) {
							// The siblings replay only once part 1's new body ran.
							await().atMost(Duration.ofSeconds(10)).until(() -> newBodyRan.getCount() == 0);
						}
						return step(context, "part-" + part, () -> {
							bodies.incrementAndGet();
							if (part == 1) {
								newBodyRan.countDown();
								if (!retry) {
									throw new IllegalStateException("part 1 fails on the first run");
								}
							}
							return part;
						});
					}, threads));
				}
				// Every part ends (recorded or failed) before the run does.
				java.util.concurrent.CompletableFuture.allOf(parts.toArray(new java.util.concurrent.CompletableFuture<?>[0]))
					.exceptionally((failure) -> null)
					.join();
				int sum = 0;
				for (java.util.concurrent.CompletableFuture<Integer> part : parts) {
					sum += part.join();
				}
				return sum;
			});
			long id = fixture().queue().enqueue("fan-out", null);
			assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.RETRIED);
			assertThat(fixture().queue().steps(id)).extracting(JobStep::name)
				.containsExactlyInAnyOrder("part-0", "part-2");
			assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
			assertThat(fixture().job(id).result()).isEqualTo("3");
			assertThat(bodies).as("parts 0 and 2 once, part 1 twice").hasValue(4);
		}
		finally {
			threads.shutdownNow();
		}
	}

	/** The pruner deletes a finished job's records and signals with it. */
	@Test
	default void stepsAndSignalsArePrunedWithTheirJob() {
		handler("order", (payload, context) -> context.step("charge", Integer.class, () -> 1));
		long id = fixture().queue().enqueue("order", null);
		fixture().queue().signal(id, "paid", 1);
		assertThat(runOnce(id).outcome()).isEqualTo(JobOutcome.SUCCEEDED);
		assertThat(fixture().queue().steps(id)).hasSize(1);
		// Finished before now by the database's clock: pruned at an age of zero.
		String now = isolatedDatabase().dialect().now();
		await().atMost(WAIT).pollInterval(Duration.ofMillis(5))
			.until(() -> fixture().count("id = " + id + " AND finished_at < " + now) == 1);
		assertThat(fixture().store().pruneFinished(JobStatus.SUCCEEDED, Duration.ZERO, 100)).isOne();
		assertThat(fixture().queue().steps(id)).isEmpty();
		assertThat(fixture().queue().signals(id)).isEmpty();
	}

}
