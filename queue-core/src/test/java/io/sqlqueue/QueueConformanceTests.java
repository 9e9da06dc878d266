package io.sqlqueue;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;

import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.internal.DefaultJobQueue;
import io.sqlqueue.internal.await.JobAwaiter;
import io.sqlqueue.internal.handler.MethodJobInvoker;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.manager.JobRunner;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.schedule.DefaultSchedules;
import io.sqlqueue.internal.store.Backlog;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.CompletedJobs;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.JobBrowser;
import io.sqlqueue.internal.store.JobFilter;
import io.sqlqueue.internal.store.JobPage;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.JobSummary;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.internal.store.NewJob;
import io.sqlqueue.internal.store.QueueCount;
import io.sqlqueue.internal.store.ScheduleRow;
import io.sqlqueue.internal.store.ScheduleStore;
import io.sqlqueue.observation.JobObservations;
import io.sqlqueue.observation.MicrometerJobObservations;
import io.sqlqueue.schedule.FiredTick;
import io.sqlqueue.schedule.MisfirePolicy;
import io.sqlqueue.schedule.OverlapPolicy;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleDefinition;
import io.sqlqueue.schedule.ScheduleRecord;
import io.sqlqueue.schedule.ScheduleSource;
import io.sqlqueue.schedule.Schedules;
import io.sqlqueue.test.OpenTransaction;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.RecordingJobListener;
import io.sqlqueue.test.SwitchableDataSource;
import io.sqlqueue.test.TestDatabase;
import io.sqlqueue.test.TestPropagator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The behaviour every database and claim method must show, with real connections and real
 * threads. A subclass names the database; it adds tests only for what is its own.
 */
public abstract class QueueConformanceTests
		implements FlowControlConformance, WorkflowConformance, ScheduleConformance, ManagerLoopsConformance,
		CallerLockConformance, CompletionFlushConformance, UnknownHandlerConformance {

	protected static final Duration WAIT = Duration.ofSeconds(30);

	private static final tools.jackson.databind.json.JsonMapper JSON = tools.jackson.databind.json.JsonMapper.builder()
		.build();

	protected TestDatabase.Isolated database;

	protected QueueFixture fixture;

	protected abstract TestDatabase database();

	protected ClaimMethod claimMethod() {
		return database().dialect().claimMethod();
	}

	/** Jobs the concurrency test drains. */
	protected int concurrencyJobs() {
		return 2_000;
	}

	@BeforeEach
	void setUp() {
		this.database = database().isolated();
		this.fixture = new QueueFixture(this.database, claimMethod(), new PayloadCodec(
				tools.jackson.databind.json.JsonMapper.builder().build(), 4096));
	}

	@AfterEach
	void tearDown() throws Exception {
		// Null when set-up was skipped (no server) or failed.
		if (this.fixture != null) {
			this.fixture.close();
		}
		if (this.database != null) {
			this.database.close();
		}
	}

	@Override
	public QueueFixture fixture() {
		return this.fixture;
	}

	@Override
	public TestDatabase.Isolated isolatedDatabase() {
		return this.database;
	}

	protected void handler(String name, io.sqlqueue.handler.JobInvoker invoker) {
		this.fixture.register(HandlerDefinition.of(name, "default", invoker));
	}

	private void awaitStatus(long id, JobStatus status) {
		await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> this.fixture.status(id) == status);
	}

	private List<JobRecord> claim(String queue, int limit, String... handlers) {
		return this.fixture.store()
			.claim(new ClaimRequest("test-worker", queue, List.of(handlers), limit, 30_000));
	}

	// --- enqueue and run

	@Test
	void enqueuedJobRunsAndStoresItsResult() {
		handler("echo", (payload, context) -> Map.of("echo", payload, "attempt", context.attempt()));
		this.fixture.startManager((s) -> s);
		long id = this.fixture.queue().enqueue("echo", Map.of("name", "Ada"));
		awaitStatus(id, JobStatus.SUCCEEDED);
		JobRecord job = this.fixture.job(id);
		assertThat(job.attempts()).isEqualTo(1);
		Map<?, ?> result = JSON.readValue(job.result(), Map.class);
		assertThat(result.get("attempt")).isEqualTo(1);
		assertThat(JSON.readValue((String) result.get("echo"), Map.class)).isEqualTo(Map.of("name", "Ada"));
		assertThat(job.startedAt()).isNotNull();
		assertThat(job.finishedAt()).isNotNull();
		assertThat(job.leaseExpiresAt()).isNull();
		// The token stays, so that a write whose answer was lost can tell it landed.
		assertThat(job.leaseToken()).isNotNull();
	}

	@Test
	void typedPayloadIsDecodedForTheHandlerMethod() throws Exception {
		Greeter greeter = new Greeter();
		this.fixture.register(HandlerDefinition.of("greet", "default", new MethodJobInvoker(greeter,
				Greeter.class.getDeclaredMethod("greet", Greeting.class, JobContext.class), "greet",
				this.fixture.codec())));
		this.fixture.startManager((s) -> s);
		long id = this.fixture.queue().enqueue("greet", new Greeting("Grace", 2));
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(this.fixture.job(id).result()).isEqualTo("\"Hello Grace x2 (job " + id + ")\"");
	}

	@Test
	void enqueueAllInsertsInOneBatchAndReturnsIdsInOrder() {
		List<Long> ids = this.fixture.queue()
			.enqueueAll(List.of(Job.of("a", 1), Job.of("b", 2).priority(5), Job.of("c", 3).queue("other")));
		assertThat(ids).hasSize(3).doesNotHaveDuplicates();
		assertThat(this.fixture.job(ids.get(0)).handler()).isEqualTo("a");
		assertThat(this.fixture.job(ids.get(1)).priority()).isEqualTo(5);
		assertThat(this.fixture.job(ids.get(2)).queue()).isEqualTo("other");
		assertThat(this.fixture.job(ids.get(0)).maxAttempts()).isEqualTo(QueueFixture.FAST_RETRIES.maxAttempts());
	}

	@Test
	void delayedJobIsNotClaimedBeforeItIsDue() {
		long later = this.fixture.queue().enqueue(Job.of("work", null).delay(Duration.ofHours(1)));
		long future = this.fixture.queue().enqueue(Job.of("work", null).runAt(Instant.now().plusSeconds(3600)));
		long past = this.fixture.queue().enqueue(Job.of("work", null).runAt(Instant.now().minusSeconds(60)));
		assertThat(claim("default", 10, "work")).extracting(JobRecord::id).containsExactly(past);
		assertThat(this.fixture.status(later)).isEqualTo(JobStatus.QUEUED);
		assertThat(this.fixture.status(future)).isEqualTo(JobStatus.QUEUED);
	}

	@Test
	void delayedJobRunsAfterItsDelayOnTheDatabaseClock() {
		handler("work", (payload, context) -> null);
		this.fixture.startManager((s) -> s);
		long id = this.fixture.queue().enqueue(Job.of("work", null).delay(Duration.ofMillis(700)));
		awaitStatus(id, JobStatus.SUCCEEDED);
		JobRecord job = this.fixture.job(id);
		assertThat(Duration.between(job.createdAt(), job.startedAt())).isGreaterThanOrEqualTo(Duration.ofMillis(700));
	}

	@Test
	void higherPriorityRunsFirstAndEqualPriorityRunsInEnqueueOrder() {
		long low1 = this.fixture.queue().enqueue(Job.of("work", 1));
		long high = this.fixture.queue().enqueue(Job.of("work", 2).priority(10));
		long low2 = this.fixture.queue().enqueue(Job.of("work", 3));
		long mid = this.fixture.queue().enqueue(Job.of("work", 4).priority(5));
		List<Long> order = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			order.add(claim("default", 1, "work").get(0).id());
		}
		assertThat(order).containsExactly(high, mid, low1, low2);
		assertThat(claim("default", 1, "work")).isEmpty();
	}

	@Test
	void batchClaimReturnsJobsInRunOrderAndNeverMoreThanTheLimit() {
		List<Long> ids = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			ids.add(this.fixture.queue().enqueue(Job.of("work", i)));
		}
		List<JobRecord> first = claim("default", 10, "work");
		assertThat(first).extracting(JobRecord::id).containsExactlyElementsOf(ids.subList(0, 10));
		assertThat(first).allSatisfy((job) -> {
			assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
			assertThat(job.attempts()).isEqualTo(1);
			assertThat(job.leaseToken()).isNotNull();
		});
		assertThat(this.fixture.count("status = 'RUNNING'")).isEqualTo(10);
	}

	@Test
	void managerClaimsOnlyItsQueuesAndHandlers() {
		long otherQueue = this.fixture.queue().enqueue(Job.of("work", null).queue("elsewhere"));
		long otherHandler = this.fixture.queue().enqueue("unknown.handler", null);
		assertThat(claim("default", 10, "work")).isEmpty();
		assertThat(this.fixture.status(otherQueue)).isEqualTo(JobStatus.QUEUED);
		assertThat(this.fixture.status(otherHandler)).isEqualTo(JobStatus.QUEUED);
	}

	// --- unique keys and transactions

	@Test
	void uniqueKeyRejectsADuplicateOfAnUnfinishedJobOnly() {
		long first = this.fixture.queue().enqueue(Job.of("work", 1).uniqueKey("report:2026-11-22"));
		assertThatThrownBy(() -> this.fixture.queue().enqueue(Job.of("work", 2).uniqueKey("report:2026-11-22")))
			.isInstanceOf(DuplicateJobException.class)
			.hasMessageContaining("report:2026-11-22");
		assertThat(this.fixture.count("unique_key = 'report:2026-11-22'")).isEqualTo(1);
		JobRecord claimed = claim("default", 1, "work").get(0);
		assertThatThrownBy(() -> this.fixture.queue().enqueue(Job.of("work", 3).uniqueKey("report:2026-11-22")))
			.isInstanceOf(DuplicateJobException.class);
		this.fixture.store().complete(List.of(new Completion(new Lease(first, claimed.leaseToken()), null)));
		long second = this.fixture.queue().enqueue(Job.of("work", 4).uniqueKey("report:2026-11-22"));
		assertThat(second).isNotEqualTo(first);
	}

	@Test
	void enqueueAllWithADuplicateWritesNothing() {
		this.fixture.queue().enqueue(Job.of("work", 1).uniqueKey("k"));
		assertThatThrownBy(() -> this.fixture.queue()
			.enqueueAll(List.of(Job.of("work", 2), Job.of("work", 3).uniqueKey("k"), Job.of("work", 4))))
			.isInstanceOf(DuplicateJobException.class);
		assertThat(this.fixture.count("1 = 1")).isEqualTo(1);
	}

	@Test
	void enqueueAllWithADuplicateInsideACallersTransactionWritesNoneOfItsJobs() {
		this.fixture.queue().enqueue(Job.of("work", 1).uniqueKey("k"));
		TransactionTemplate transaction = new TransactionTemplate(
				new DataSourceTransactionManager(this.database.dataSource()));
		transaction.executeWithoutResult((status) -> {
			this.fixture.queue().enqueue("work", "before");
			assertThatThrownBy(() -> this.fixture.queue()
				.enqueueAll(List.of(Job.of("work", 2), Job.of("work", 3).uniqueKey("k"), Job.of("work", 4))))
				.isInstanceOf(DuplicateJobException.class);
			this.fixture.queue().enqueue("work", "after");
		});
		assertThat(this.fixture.count("1 = 1")).isEqualTo(3);
		assertThat(this.fixture.jdbc()
			.queryForList("SELECT payload FROM " + this.fixture.table() + " ORDER BY id", String.class))
			.map((payload) -> payload.replace(" ", ""))
			.containsExactly("1", "\"before\"", "\"after\"");
	}

	@Test
	void enqueueRolledBackWithTheCallersTransactionLeavesNoJob() {
		TransactionTemplate transaction = new TransactionTemplate(
				new DataSourceTransactionManager(this.database.dataSource()));
		assertThatThrownBy(() -> transaction.executeWithoutResult((status) -> {
			this.fixture.queue().enqueue("work", "rolled back");
			throw new IllegalStateException("caller fails");
		})).hasMessage("caller fails");
		assertThat(this.fixture.count("1 = 1")).isZero();
		Long id = transaction.execute((status) -> this.fixture.queue().enqueue("work", "committed"));
		assertThat(this.fixture.job(id).payload()).contains("committed");
	}

	@Test
	void duplicateInsideACallersTransactionLeavesTheTransactionUsable() {
		this.fixture.queue().enqueue(Job.of("work", 1).uniqueKey("once"));
		TransactionTemplate transaction = new TransactionTemplate(
				new DataSourceTransactionManager(this.database.dataSource()));
		transaction.executeWithoutResult((status) -> {
			assertThatThrownBy(() -> this.fixture.queue().enqueue(Job.of("work", 2).uniqueKey("once")))
				.isInstanceOf(DuplicateJobException.class);
			this.fixture.queue().enqueue("work", "after the duplicate");
		});
		assertThat(this.fixture.count("1 = 1")).isEqualTo(2);
	}

	@Test
	void wakeUpAfterCommitOnlyForCommittedEnqueues() {
		List<Set<String>> woken = Collections.synchronizedList(new ArrayList<>());
		this.fixture.queue().addEnqueueListener(woken::add);
		TransactionTemplate transaction = new TransactionTemplate(
				new DataSourceTransactionManager(this.database.dataSource()));
		transaction.executeWithoutResult((status) -> {
			this.fixture.queue().enqueue(Job.of("work", null).queue("mail"));
			assertThat(woken).isEmpty();
		});
		assertThat(woken).containsExactly(Set.of("mail"));
		transaction.executeWithoutResult((status) -> {
			this.fixture.queue().enqueue(Job.of("work", null).queue("reports"));
			status.setRollbackOnly();
		});
		assertThat(woken).containsExactly(Set.of("mail"));
	}

	// --- failures, retries, dead letters

	@Test
	void failingJobIsRetriedWithBackoffThenFailsWithItsLastError() {
		AtomicInteger calls = new AtomicInteger();
		handler("flaky", (payload, context) -> {
			throw new IllegalStateException("boom " + calls.incrementAndGet());
		});
		this.fixture.startManager((s) -> s);
		long id = this.fixture.queue().enqueue("flaky", null);
		awaitStatus(id, JobStatus.FAILED);
		JobRecord job = this.fixture.job(id);
		assertThat(job.attempts()).isEqualTo(3);
		assertThat(calls).hasValue(3);
		assertThat(job.lastError()).startsWith("java.lang.IllegalStateException: boom 3");
		assertThat(job.finishedAt()).isNotNull();
	}

	@Test
	void retryWaitsForItsBackoffOnTheDatabaseClock() {
		List<Instant> starts = Collections.synchronizedList(new ArrayList<>());
		AtomicInteger calls = new AtomicInteger();
		handler("once-flaky", (payload, context) -> {
			starts.add(this.fixture.job(context.jobId()).startedAt());
			if (calls.incrementAndGet() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
			return null;
		});
		this.fixture.startManager((s) -> s.retryPolicy(new io.sqlqueue.handler.RetryPolicy(3,
				Duration.ofMillis(500), 2.0, Duration.ofSeconds(1), 0.0)));
		long id = this.fixture.queue().enqueue("once-flaky", null);
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(this.fixture.job(id).attempts()).isEqualTo(2);
		assertThat(Duration.between(starts.get(0), starts.get(1))).isGreaterThanOrEqualTo(Duration.ofMillis(500));
	}

	@Test
	void nonRetryableExceptionFailsAtOnce() {
		handler("invalid", (payload, context) -> {
			throw new NonRetryableException("no such customer");
		});
		this.fixture.register(new HandlerDefinition("listed", "default", null, null,
				Set.of(UnsupportedOperationException.class), (payload, context) -> {
					throw new UnsupportedOperationException("listed on the handler");
				}, "listed"));
		this.fixture.startManager((s) -> s);
		long first = this.fixture.queue().enqueue("invalid", null);
		long second = this.fixture.queue().enqueue("listed", null);
		awaitStatus(first, JobStatus.FAILED);
		awaitStatus(second, JobStatus.FAILED);
		assertThat(this.fixture.job(first).attempts()).isEqualTo(1);
		assertThat(this.fixture.job(first).lastError()).contains("no such customer");
		assertThat(this.fixture.job(second).attempts()).isEqualTo(1);
	}

	@Test
	void failedJobCanBeRetriedByAnOperatorAndQueuedJobCancelled() {
		AtomicBoolean broken = new AtomicBoolean(true);
		handler("fixable", (payload, context) -> {
			if (broken.get()) {
				throw new NonRetryableException("broken");
			}
			return "fixed";
		});
		this.fixture.startManager((s) -> s);
		long id = this.fixture.queue().enqueue("fixable", null);
		awaitStatus(id, JobStatus.FAILED);
		assertThat(this.fixture.queue().cancel(id)).isFalse();
		broken.set(false);
		assertThat(this.fixture.queue().retry(id)).isTrue();
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(this.fixture.job(id).attempts()).isEqualTo(1);
		assertThat(this.fixture.queue().retry(id)).isFalse();

		long delayed = this.fixture.queue().enqueue(Job.of("fixable", null).delay(Duration.ofHours(1)));
		assertThat(this.fixture.queue().cancel(delayed)).isTrue();
		assertThat(this.fixture.status(delayed)).isEqualTo(JobStatus.CANCELLED);
		assertThat(this.fixture.queue().cancel(delayed)).isFalse();
		assertThat(this.fixture.queue().cancel(-1)).isFalse();
	}

	@Test
	void handlerThatOutlivesItsTimeoutIsInterruptedAndItsAttemptFails() {
		AtomicBoolean interrupted = new AtomicBoolean();
		this.fixture.register(new HandlerDefinition("hangs", "default", 1, Duration.ofMillis(300), Set.of(),
				(payload, context) -> {
					try {
						Thread.sleep(60_000);
					}
					catch (InterruptedException ex) {
						interrupted.set(true);
						throw ex;
					}
					return null;
				}, "hangs"));
		Manager manager = this.fixture.startManager((s) -> s);
		long id = this.fixture.queue().enqueue("hangs", null);
		awaitStatus(id, JobStatus.FAILED);
		assertThat(this.fixture.job(id).lastError()).contains("timeout of PT0.3S");
		await().atMost(WAIT).untilTrue(interrupted);
		assertThat(manager.leaseLosses()).isZero();
	}

	// --- transactional handlers (exactly-once effects for database work)

	private void transactionalHandler(String name, io.sqlqueue.handler.JobInvoker invoker) {
		this.fixture.register(new HandlerDefinition(name, "default", null, null, Set.of(), invoker, name, true));
	}

	@Test
	void transactionalHandlerWritesCommitWithItsCompletion() {
		this.fixture.jdbc().execute("CREATE TABLE effect (job_id BIGINT NOT NULL, attempt INT NOT NULL)");
		transactionalHandler("pay", (payload, context) -> {
			this.fixture.jdbc().update("INSERT INTO effect (job_id, attempt) VALUES (?, ?)", context.jobId(),
					context.attempt());
			if (context.attempt() == 1) {
				throw new IllegalStateException("first attempt fails after writing");
			}
			return "paid";
		});
		this.fixture.startManager((s) -> s);
		long id = this.fixture.queue().enqueue("pay", null);
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(this.fixture.job(id).result()).isEqualTo("\"paid\"");
		assertThat(this.fixture.jdbc().queryForList("SELECT attempt FROM effect WHERE job_id = ?", Integer.class, id))
			.containsExactly(2);
	}

	/**
	 * The transaction of a transactional handler that returned may still fail (a deadlock
	 * while its end settles dependents, a connection lost at commit): that attempt is recorded
	 * as failed with the real error and retried by the retry policy, at once rather than after
	 * its lease, and counts as no crash and no lost lease.
	 */
	@Test
	void transactionalHandlerWhoseCompletionFailsIsRetriedNotCountedAsACrash() {
		this.fixture.jdbc().execute("CREATE TABLE effect (job_id BIGINT NOT NULL, attempt INT NOT NULL)");
		AtomicBoolean failed = new AtomicBoolean();
		JobStore store = new JobStore(this.database.dataSource(), this.database.dialect(), this.database.schema(),
				claimMethod()) {
			@Override
			public boolean completeWhileLeased(Completion completion) {
				boolean held = super.completeWhileLeased(completion);
				if (failed.compareAndSet(false, true)) {
					throw new org.springframework.dao.CannotAcquireLockException("Deadlock while settling (test)");
				}
				return held;
			}
		};
		transactionalHandler("pay", (payload, context) -> {
			this.fixture.jdbc().update("INSERT INTO effect (job_id, attempt) VALUES (?, ?)", context.jobId(),
					context.attempt());
			return "paid";
		});
		Manager manager = this.fixture.startManager(store, QueueFixture.fastSettings().build(), 4);
		long id = this.fixture.queue().enqueue("pay", null);
		// Well within the 30 s lease: no reaper is needed to run it again.
		await().atMost(Duration.ofSeconds(10)).until(() -> this.fixture.status(id) == JobStatus.SUCCEEDED);
		JobRecord job = this.fixture.job(id);
		assertThat(job.attempts()).isEqualTo(2);
		assertThat(job.crashes()).isZero();
		assertThat(job.lastError()).contains("Deadlock while settling (test)");
		assertThat(manager.leaseLosses()).isZero();
		assertThat(this.fixture.jdbc().queryForList("SELECT attempt FROM effect WHERE job_id = ?", Integer.class, id))
			.containsExactly(2);
	}

	/**
	 * The connection is lost as a transactional handler's transaction commits: the commit
	 * landed, but its answer was lost, and so was the look-up of the row that followed. The
	 * failure write then finds the row finished under the attempt's token: the success landed,
	 * which is neither a lost lease nor a failure (seen in the fault suite, whose terminated
	 * connections counted it as a lost lease).
	 */
	@Test
	void transactionalSuccessWhoseCommitAnswerAndLookUpWereLostIsASuccess() {
		AtomicBoolean answerLost = new AtomicBoolean();
		AtomicBoolean lookUpLost = new AtomicBoolean();
		JobStore store = new JobStore(this.database.dataSource(), this.database.dialect(), this.database.schema(),
				claimMethod()) {
			@Override
			public <T> T inTransaction(java.util.function.Supplier<T> work) {
				T result = super.inTransaction(work);
				if (answerLost.compareAndSet(false, true)) {
					throw new org.springframework.dao.DataAccessResourceFailureException("Connection lost at commit (test)");
				}
				return result;
			}

			@Override
			public Set<Lease> finishedUnder(java.util.Collection<Lease> leases) {
				if (lookUpLost.compareAndSet(false, true)) {
					throw new org.springframework.dao.DataAccessResourceFailureException("Connection lost (test)");
				}
				return super.finishedUnder(leases);
			}
		};
		AtomicInteger runs = new AtomicInteger();
		transactionalHandler("pay", (payload, context) -> {
			runs.incrementAndGet();
			return "paid";
		});
		Manager manager = this.fixture.startManager(store, QueueFixture.fastSettings().build(), 4);
		long id = this.fixture.queue().enqueue("pay", null);
		await().atMost(WAIT).until(() -> this.fixture.status(id) == JobStatus.SUCCEEDED && answerLost.get());
		// The attempt's end is told once its failure write found what had landed.
		await().atMost(WAIT).until(() -> !this.fixture.listener().events("finished pay").isEmpty()
				|| !this.fixture.listener().events("lease lost pay").isEmpty());
		assertThat(this.fixture.listener().events("lease lost pay")).isEmpty();
		assertThat(this.fixture.listener().events("finished pay")).containsExactly("finished pay succeeded");
		assertThat(manager.leaseLosses()).isZero();
		assertThat(runs).hasValue(1);
		assertThat(this.fixture.job(id).attempts()).isEqualTo(1);
	}

	@Test
	void transactionalHandlerWhoseLeaseWasLostRollsItsWritesBack() {
		this.fixture.jdbc().execute("CREATE TABLE effect (job_id BIGINT NOT NULL, attempt INT NOT NULL)");
		try (HikariDataSource other = this.database.newDataSource(2)) {
			transactionalHandler("pay", (payload, context) -> {
				// While the handler runs, the job is handed to another worker (as after a reap and
				// a new claim); before the handler's own write, as SQLite's single writer allows.
				new org.springframework.jdbc.core.JdbcTemplate(other).update(
						"UPDATE " + this.fixture.table() + " SET lease_token = lease_token + 1 WHERE id = ?",
						context.jobId());
				this.fixture.jdbc().update("INSERT INTO effect (job_id, attempt) VALUES (?, ?)", context.jobId(),
						context.attempt());
				return "paid";
			});
			Manager manager = this.fixture.startManager((s) -> s);
			long id = this.fixture.queue().enqueue("pay", null);
			await().atMost(WAIT).until(() -> manager.leaseLosses() == 1);
			assertThat(this.fixture.jdbc().queryForObject("SELECT COUNT(*) FROM effect", Integer.class)).isZero();
			assertThat(this.fixture.status(id)).isEqualTo(JobStatus.RUNNING);
			assertThat(this.fixture.job(id).result()).isNull();
			manager.stop();
		}
	}

	// --- bad input

	@Test
	void jobOfAHandlerNoInstanceHasStaysQueuedUntouchedAndShowsAsStale() {
		handler("known", (payload, context) -> null);
		this.fixture.startManager((s) -> s);
		long unknown = this.fixture.queue().enqueue("nobody.handles.this", Map.of("x", 1));
		long known = this.fixture.queue().enqueue("known", null);
		awaitStatus(known, JobStatus.SUCCEEDED);
		await().pollDelay(Duration.ofMillis(200)).atMost(WAIT).until(() -> true);
		JobRecord job = this.fixture.job(unknown);
		assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
		assertThat(job.attempts()).isZero();
		assertThat(job.version()).isZero();
		List<Backlog> backlog = this.fixture.store().dueBacklog();
		assertThat(backlog).singleElement().satisfies((stale) -> {
			assertThat(stale.handler()).isEqualTo("nobody.handles.this");
			assertThat(stale.dueJobs()).isEqualTo(1);
			assertThat(stale.oldestAge()).isGreaterThan(Duration.ZERO);
		});
	}

	@Test
	void undecodablePayloadFailsAtOnceWithAClearError() throws Exception {
		Greeter greeter = new Greeter();
		this.fixture.register(HandlerDefinition.of("greet", "default", new MethodJobInvoker(greeter,
				Greeter.class.getDeclaredMethod("greet", Greeting.class, JobContext.class), "greet",
				this.fixture.codec())));
		this.fixture.startManager((s) -> s);
		long id = this.fixture.queue().enqueue("greet", List.of("not", "a", "greeting"));
		awaitStatus(id, JobStatus.FAILED);
		JobRecord job = this.fixture.job(id);
		assertThat(job.attempts()).isEqualTo(1);
		assertThat(job.lastError()).contains("PayloadDecodingException")
			.contains("cannot be decoded as io.sqlqueue.QueueConformanceTests$Greeting");
		assertThat(greeter.calls).hasValue(0);
	}

	@Test
	void payloadOfAnotherShapeFailsAtOnceNamingTheField() throws Exception {
		Greeter greeter = new Greeter();
		Method greet = Greeter.class.getDeclaredMethod("greet", Greeting.class, JobContext.class);
		this.fixture.register(HandlerDefinition.of("greet", "default",
				new MethodJobInvoker(greeter, greet, "greet", this.fixture.codec())));
		this.fixture.startManager((s) -> s);
		long otherType = this.fixture.queue().enqueue("greet", Map.of("customer", "acme", "copies", 7));
		long unknown = this.fixture.queue().enqueue("greet", Map.of("name", "Grace", "times", 2, "nickname", "x"));
		long missing = this.fixture.queue().enqueue("greet", Map.of("times", 2));
		Map<String, Object> nullName = new HashMap<>();
		nullName.put("name", null);
		nullName.put("times", 2);
		long nulled = this.fixture.queue().enqueue("greet", nullName);
		long missingNumber = this.fixture.queue().enqueue("greet", Map.of("name", "Grace"));
		Map<Long, String> fields = Map.of(otherType, "'name'", unknown, "Unrecognized property \"nickname\"",
				missing, "'name'", nulled, "\"name\"", missingNumber, "'times'");
		fields.forEach((id, field) -> {
			await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> this.fixture.status(id).isFinished());
			JobRecord job = this.fixture.job(id);
			assertThat(job.status()).as("status of job %d", id).isEqualTo(JobStatus.FAILED);
			assertThat(job.attempts()).as("attempts of job %d", id).isEqualTo(1);
			assertThat(job.lastError()).contains("PayloadDecodingException")
				.contains("cannot be decoded as io.sqlqueue.QueueConformanceTests$Greeting")
				.contains(field);
		});
		assertThat(greeter.calls).hasValue(0);
	}

	@Test
	void lenientHandlerRunsAPayloadOfAnotherShape() throws Exception {
		Greeter greeter = new Greeter();
		Method greet = Greeter.class.getDeclaredMethod("greet", Greeting.class, JobContext.class);
		this.fixture.register(new HandlerDefinition("greet", "default", null, null, Set.of(),
				new MethodJobInvoker(greeter, greet, "greet", this.fixture.codec(), true), "greet", false, true));
		this.fixture.startManager((s) -> s);
		long id = this.fixture.queue().enqueue("greet", Map.of("times", 2, "nickname", "Amazing"));
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(this.fixture.job(id).result()).isEqualTo("\"Hello null x2 (job " + id + ")\"");
	}

	@Test
	void oversizedPayloadIsRejectedAtEnqueueAndNothingIsWritten() {
		assertThatThrownBy(() -> this.fixture.queue().enqueue("work", "x".repeat(5000)))
			.isInstanceOf(InvalidJobException.class)
			.hasMessageContaining("over the limit of 4096");
		assertThatThrownBy(() -> this.fixture.queue()
			.enqueueAll(List.of(Job.of("work", "small"), Job.of("work", "y".repeat(5000)))))
			.isInstanceOf(InvalidJobException.class);
		assertThat(this.fixture.count("1 = 1")).isZero();
	}

	@Test
	void invalidNamesAreRejectedAtEnqueueAndNothingIsWritten() {
		String injection = "x'; DROP TABLE queue_job; --";
		assertThatThrownBy(() -> this.fixture.queue().enqueue(Job.of("work", null).queue(injection)))
			.isInstanceOf(InvalidJobException.class)
			.hasMessageContaining("Invalid queue name");
		assertThatThrownBy(() -> this.fixture.queue().enqueue(injection, null))
			.isInstanceOf(InvalidJobException.class)
			.hasMessageContaining("Invalid handler name");
		assertThatThrownBy(() -> this.fixture.queue().enqueue("", null)).isInstanceOf(InvalidJobException.class);
		assertThatThrownBy(() -> this.fixture.queue().enqueue(Job.of("work", null).queue("q".repeat(65))))
			.isInstanceOf(InvalidJobException.class);
		assertThatThrownBy(() -> this.fixture.queue().enqueue(Job.of("work", null).maxAttempts(0)))
			.isInstanceOf(InvalidJobException.class);
		assertThat(this.fixture.count("1 = 1")).isZero();
	}

	@Test
	void claimBindsNamesAsParameters() {
		String injection = "x' OR '1'='1";
		this.fixture.queue().enqueue("work", null);
		assertThat(claim(injection, 10, injection)).isEmpty();
		assertThat(this.fixture.count("status = 'QUEUED'")).isEqualTo(1);
	}

	// --- bad input catalogue (README, "What happens to bad input": one test per row)

	private void assertRejectedAndNothingWritten(org.assertj.core.api.ThrowableAssert.ThrowingCallable enqueue,
			String cause) {
		int before = this.fixture.count("1 = 1");
		assertThatThrownBy(enqueue).isInstanceOf(InvalidJobException.class).hasMessageContaining(cause);
		assertThat(this.fixture.count("1 = 1")).isEqualTo(before);
	}

	/** {@code depth} arrays, one inside the other: {@code [[[]]]} for 3. */
	private static Object nestedArrays(int depth) {
		Object value = List.of();
		for (int i = 1; i < depth; i++) {
			value = List.of(value);
		}
		return value;
	}

	/** {@code depth} objects, one inside the other: {@code {"a":{"a":{}}}} for 3. */
	private static Object nestedObjects(int depth) {
		Object value = Map.of();
		for (int i = 1; i < depth; i++) {
			value = Map.of("a", value);
		}
		return value;
	}

	@Test
	void payloadWithANulCharacterIsRejectedOnEveryDatabase() {
		assertRejectedAndNothingWritten(() -> this.fixture.queue().enqueue("work", Map.of("s", "a\u0000b")), "NUL");
		assertRejectedAndNothingWritten(() -> this.fixture.queue().enqueue("work", Map.of("key\u0000", 1)), "NUL");
		assertRejectedAndNothingWritten(() -> this.fixture.queue()
			.enqueueAll(List.of(Job.of("work", "fine"), Job.of("work", List.of("\u0000")))), "NUL");
		assertThat(this.fixture.count("1 = 1")).isZero();
		// Only the character itself: a backslash followed by "u0000", and other control
		// characters, are ordinary payload.
		long text = this.fixture.queue().enqueue("work", "C:\\u0000");
		long control = this.fixture.queue().enqueue("work", "a\u0001\u001fb");
		assertThat(this.fixture.job(text).payload()).isEqualTo("\"C:\\\\u0000\"");
		assertThat(JSON.readValue(this.fixture.job(control).payload(), String.class)).isEqualTo("a\u0001\u001fb");
	}

	@Test
	void payloadNestedAsDeepAsTheDatabaseStoresIsStoredAndOneLevelDeeperIsRejected() {
		int depth = database().dialect().maxJsonDepth();
		long arrays = this.fixture.queue().enqueue("work", nestedArrays(depth));
		long objects = this.fixture.queue().enqueue("work", nestedObjects(depth));
		assertThat(this.fixture.job(arrays).payload().replace(" ", ""))
			.isEqualTo("[".repeat(depth) + "]".repeat(depth));
		assertThat(this.fixture.job(objects).payload().replace(" ", ""))
			.isEqualTo("{\"a\":".repeat(depth - 1) + "{}" + "}".repeat(depth - 1));
		assertRejectedAndNothingWritten(() -> this.fixture.queue().enqueue("work", nestedArrays(depth + 1)), "nest");
		assertRejectedAndNothingWritten(() -> this.fixture.queue().enqueue("work", nestedObjects(depth + 1)), "nest");
		assertRejectedAndNothingWritten(() -> this.fixture.queue().enqueue("work", nestedArrays(5000)), "");
		assertThat(this.fixture.count("1 = 1")).isEqualTo(2);
	}

	@Test
	void payloadExactlyAtTheSizeLimitIsStoredAndOneByteOverIsRejected() {
		int limit = this.fixture.codec().maxPayloadBytes();
		// Counted in bytes of UTF-8, not in characters: two bytes each, plus two quotes.
		String atLimit = "\u00e9".repeat((limit - 2) / 2) + "x".repeat((limit - 2) % 2);
		long id = this.fixture.queue().enqueue("work", atLimit);
		assertThat(this.fixture.job(id).payload()).isEqualTo("\"" + atLimit + "\"");
		assertRejectedAndNothingWritten(() -> this.fixture.queue().enqueue("work", atLimit + "x"),
				"over the limit of " + limit);
		assertThat(this.fixture.count("1 = 1")).isEqualTo(1);
	}

	@Test
	void resultWithANulCharacterIsNotStoredAndTheJobSucceedsOnce() {
		AtomicInteger calls = new AtomicInteger();
		handler("nul-result", (payload, context) -> {
			calls.incrementAndGet();
			return Map.of("s", "a\u0000b");
		});
		transactionalHandler("nul-result-tx", (payload, context) -> {
			calls.incrementAndGet();
			return "\u0000";
		});
		handler("fine", (payload, context) -> "ok");
		this.fixture.startManager((s) -> s);
		// One batch, so that on PostgreSQL one statement completes all three.
		List<Long> ids = this.fixture.queue()
			.enqueueAll(List.of(Job.of("nul-result", null), Job.of("fine", null), Job.of("nul-result-tx", null)));
		ids.forEach((id) -> awaitStatus(id, JobStatus.SUCCEEDED));
		for (long id : List.of(ids.get(0), ids.get(2))) {
			JobRecord job = this.fixture.job(id);
			assertThat(job.result()).isNull();
			assertThat(job.lastError()).startsWith("Result not stored:").contains("NUL");
			assertThat(job.attempts()).isEqualTo(1);
		}
		assertThat(this.fixture.job(ids.get(1)).result()).isEqualTo("\"ok\"");
		assertThat(this.fixture.job(ids.get(1)).lastError()).isNull();
		assertThat(calls).hasValue(2);
	}

	@Test
	void resultAtTheSizeLimitIsStoredAndALargerOneIsNotButTheJobSucceedsOnce() {
		AtomicInteger calls = new AtomicInteger();
		handler("sized", (payload, context) -> {
			calls.incrementAndGet();
			return "x".repeat(Integer.parseInt(payload) - 2);
		});
		this.fixture.startManager((s) -> s.resultMaxSize(64));
		long atLimit = this.fixture.queue().enqueue("sized", 64);
		long over = this.fixture.queue().enqueue("sized", 65);
		awaitStatus(atLimit, JobStatus.SUCCEEDED);
		awaitStatus(over, JobStatus.SUCCEEDED);
		assertThat(this.fixture.job(atLimit).result()).isEqualTo("\"" + "x".repeat(62) + "\"");
		assertThat(this.fixture.job(atLimit).lastError()).isNull();
		JobRecord job = this.fixture.job(over);
		assertThat(job.result()).isNull();
		assertThat(job.lastError()).startsWith("Result not stored:").contains("larger than");
		assertThat(job.attempts()).isEqualTo(1);
		assertThat(calls).hasValue(2);
	}

	@Test
	void resultNestedDeeperThanTheDatabaseStoresIsNotStoredAndTheJobSucceedsOnce() {
		int depth = database().dialect().maxJsonDepth();
		handler("nested", (payload, context) -> nestedArrays(Integer.parseInt(payload)));
		this.fixture.startManager((s) -> s);
		long deepest = this.fixture.queue().enqueue("nested", depth);
		long deeper = this.fixture.queue().enqueue("nested", depth + 1);
		awaitStatus(deepest, JobStatus.SUCCEEDED);
		awaitStatus(deeper, JobStatus.SUCCEEDED);
		assertThat(this.fixture.job(deepest).result().replace(" ", ""))
			.isEqualTo("[".repeat(depth) + "]".repeat(depth));
		JobRecord job = this.fixture.job(deeper);
		assertThat(job.result()).isNull();
		assertThat(job.lastError()).startsWith("Result not stored:").contains("nest");
		assertThat(job.attempts()).isEqualTo(1);
	}

	@Test
	void errorWithANulCharacterIsRecordedWithTheCharacterReplaced() {
		handler("nul-error", (payload, context) -> {
			throw new IllegalStateException("bad\u0000message");
		});
		this.fixture.startManager((s) -> s);
		long id = this.fixture.queue().enqueue(Job.of("nul-error", null).maxAttempts(2));
		awaitStatus(id, JobStatus.FAILED);
		JobRecord job = this.fixture.job(id);
		assertThat(job.attempts()).isEqualTo(2);
		assertThat(job.lastError()).startsWith("java.lang.IllegalStateException: bad\ufffdmessage")
			.doesNotContain("\u0000");
		// Both the retry and the failure were written (a write that fails tells the listener nothing).
		await().atMost(WAIT)
			.until(() -> this.fixture.listener().events("finished nul-error").size() == 2);
		assertThat(this.fixture.listener().events("finished nul-error")).containsExactly("finished nul-error retried",
				"finished nul-error failed");
	}

	@Test
	void giganticErrorIsRecordedCutToFourThousandCharacters() {
		handler("loud", (payload, context) -> {
			throw new IllegalStateException("x".repeat(1_000_000));
		});
		this.fixture.startManager((s) -> s);
		long id = this.fixture.queue().enqueue(Job.of("loud", null).maxAttempts(2));
		awaitStatus(id, JobStatus.FAILED);
		JobRecord job = this.fixture.job(id);
		assertThat(job.attempts()).isEqualTo(2);
		assertThat(job.lastError()).startsWith("java.lang.IllegalStateException: xxxxxxxx");
		assertThat(job.lastError().length()).isBetween(1000, 4000);
	}

	@Test
	void namesWithQuotesSemicolonsOrLookAlikesAreRejectedAndNothingIsWritten() {
		List<String> names = List.of("o'brien", "mail\"", "mail;", "mail; DELETE FROM queue_job", "m\u0430il",
				"\uff4d\uff41\uff49\uff4c", "mail\u200b", "ma\u0131l", "mail\u0000", "mail ", "mail\n", "ma%l");
		for (String name : names) {
			assertRejectedAndNothingWritten(() -> this.fixture.queue().enqueue(Job.of("work", null).queue(name)),
					"Invalid queue name");
			assertRejectedAndNothingWritten(() -> this.fixture.queue().enqueue(name, null), "Invalid handler name");
		}
		assertThat(this.fixture.count("1 = 1")).isZero();
		long id = this.fixture.queue().enqueue(Job.of("mail.welcome-v2_x", null).queue("mail"));
		assertThat(this.fixture.job(id).queue()).isEqualTo("mail");
		assertThat(this.fixture.job(id).handler()).isEqualTo("mail.welcome-v2_x");
	}

	@Test
	void namesOfTheLongestLengthAreStoredAndOneCharacterLongerAreRejected() {
		String queue = "q".repeat(63) + "Z";
		String handler = "h".repeat(127) + "Z";
		long id = this.fixture.queue().enqueue(Job.of(handler, null).queue(queue));
		assertThat(this.fixture.job(id).queue()).isEqualTo(queue);
		assertThat(this.fixture.job(id).handler()).isEqualTo(handler);
		assertThat(claim(queue, 1, handler)).extracting(JobRecord::id).containsExactly(id);
		assertRejectedAndNothingWritten(() -> this.fixture.queue().enqueue(Job.of("work", null).queue(queue + "Y")),
				"Invalid queue name");
		assertRejectedAndNothingWritten(() -> this.fixture.queue().enqueue(handler + "Y", null),
				"Invalid handler name");
	}

	@Test
	void keysWithQuotesOrUnicodeAreStoredExactlyAndKeysWithANulCharacterAreRejected() {
		String quoted = "o'brien; DELETE FROM queue_job; --";
		String latin = "mail-\ud83d\ude00";
		String cyrillic = "m\u0430il-\ud83d\ude00";
		long first = this.fixture.queue().enqueue(Job.of("work", 1).uniqueKey(quoted).groupKey(latin));
		long second = this.fixture.queue().enqueue(Job.of("work", 2).uniqueKey(latin));
		long third = this.fixture.queue().enqueue(Job.of("work", 3).uniqueKey(cyrillic));
		assertThat(this.fixture.job(first).uniqueKey()).isEqualTo(quoted);
		assertThat(this.fixture.job(first).groupKey()).isEqualTo(latin);
		assertThat(this.fixture.job(second).uniqueKey()).isEqualTo(latin);
		assertThat(this.fixture.job(third).uniqueKey()).isEqualTo(cyrillic);
		assertThatThrownBy(() -> this.fixture.queue().enqueue(Job.of("work", 4).uniqueKey(quoted)))
			.isInstanceOf(DuplicateJobException.class);
		assertRejectedAndNothingWritten(() -> this.fixture.queue().enqueue(Job.of("work", 5).uniqueKey("a\u0000b")),
				"NUL");
		assertRejectedAndNothingWritten(() -> this.fixture.queue().enqueue(Job.of("work", 6).groupKey("a\u0000b")),
				"NUL");
		assertRejectedAndNothingWritten(
				() -> this.fixture.queue().enqueue(Job.of("work", 7).uniqueKey("k".repeat(Names.MAX_KEY_LENGTH + 1))),
				"1 to 255 characters");
		assertRejectedAndNothingWritten(() -> this.fixture.queue().enqueue(Job.of("work", 8).concurrencyKey("a\u0000b")),
				"NUL");
		assertRejectedAndNothingWritten(
				() -> this.fixture.queue().enqueue(Job.of("work", 9).concurrencyKey("")), "1 to 255 characters");
		assertRejectedAndNothingWritten(() -> this.fixture.queue()
			.enqueue(Job.of("work", 10).concurrencyKey("k".repeat(Names.MAX_KEY_LENGTH + 1))), "1 to 255 characters");
	}

	@Test
	void negativeDelayIsRejectedWhenTheJobIsBuilt() {
		assertRejectedAndNothingWritten(
				() -> this.fixture.queue().enqueue(Job.of("work", null).delay(Duration.ofMillis(-1))),
				"delay must not be negative");
		assertRejectedAndNothingWritten(
				() -> this.fixture.queue().enqueue(Job.of("work", null).delay(Duration.ofDays(-365))),
				"delay must not be negative");
		long now = this.fixture.queue().enqueue(Job.of("work", null).delay(Duration.ZERO));
		assertThat(claim("default", 10, "work")).extracting(JobRecord::id).containsExactly(now);
	}

	@Test
	void delayOverAHundredYearsIsRejectedAndAHundredYearsIsStoredExactly() {
		assertRejectedAndNothingWritten(
				() -> this.fixture.queue().enqueue(Job.of("work", null).delay(Job.MAX_DELAY.plusMillis(1))),
				"delay must be at most 36525 days");
		assertRejectedAndNothingWritten(
				() -> this.fixture.queue().enqueue(Job.of("work", null).delay(Duration.ofSeconds(Long.MAX_VALUE))),
				"delay must be at most 36525 days");
		long id = this.fixture.queue().enqueue(Job.of("work", null).delay(Job.MAX_DELAY));
		JobRecord job = this.fixture.job(id);
		assertThat(Duration.between(job.createdAt(), job.runAt())).isEqualTo(Job.MAX_DELAY);
		assertThat(claim("default", 10, "work")).isEmpty();
	}

	@Test
	void runAtInTheYear2500IsStoredExactlyAndNotClaimed() {
		Instant runAt = Instant.parse("2500-12-31T23:59:59.999Z");
		long id = this.fixture.queue().enqueue(Job.of("work", null).runAt(runAt));
		assertThat(this.fixture.job(id).runAt()).isEqualTo(runAt);
		assertThat(claim("default", 10, "work")).isEmpty();
		assertThat(this.fixture.status(id)).isEqualTo(JobStatus.QUEUED);
		assertThat(this.fixture.store().dueBacklog()).isEmpty();
	}

	@Test
	void runAtBefore1970IsStoredExactlyAndDueAtOnce() {
		Instant justBefore = Instant.parse("1969-12-31T23:59:59.999Z");
		Instant longBefore = Instant.parse("1901-12-13T20:45:51.001Z");
		long now = this.fixture.queue().enqueue(Job.of("old", null));
		long first = this.fixture.queue().enqueue(Job.of("old", null).runAt(justBefore));
		long second = this.fixture.queue().enqueue(Job.of("old", null).runAt(longBefore));
		assertThat(this.fixture.job(first).runAt()).isEqualTo(justBefore);
		assertThat(this.fixture.job(second).runAt()).isEqualTo(longBefore);
		// Due for longest, so first in line.
		assertThat(claim("default", 10, "old")).extracting(JobRecord::id).containsExactly(second, first, now);
		handler("work", (payload, context) -> "ran");
		this.fixture.startManager((s) -> s);
		long id = this.fixture.queue().enqueue(Job.of("work", null).runAt(justBefore));
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(this.fixture.job(id).result()).isEqualTo("\"ran\"");
		assertThat(this.fixture.job(id).runAt()).isEqualTo(justBefore);
	}

	@Test
	void runAtOutsideTheYears1000To9999IsRejectedAndTheEndsOfTheRangeAreStoredExactly() {
		for (Instant outside : List.of(Job.LATEST_RUN_AT.plusMillis(1), Instant.parse("+10000-01-01T00:00:00Z"),
				Instant.MAX, Job.EARLIEST_RUN_AT.minusMillis(1), Instant.parse("-0001-01-01T00:00:00Z"), Instant.MIN)) {
			assertRejectedAndNothingWritten(() -> this.fixture.queue().enqueue(Job.of("work", null).runAt(outside)),
					"runAt must be from 1000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z");
		}
		long latest = this.fixture.queue().enqueue(Job.of("work", null).runAt(Job.LATEST_RUN_AT));
		long earliest = this.fixture.queue().enqueue(Job.of("work", null).runAt(Job.EARLIEST_RUN_AT));
		assertThat(this.fixture.job(latest).runAt()).isEqualTo(Job.LATEST_RUN_AT);
		assertThat(this.fixture.job(earliest).runAt()).isEqualTo(Job.EARLIEST_RUN_AT);
		assertThat(claim("default", 10, "work")).extracting(JobRecord::id).containsExactly(earliest);
	}

	@Test
	void priorityMinAndMaxValueAreStoredExactlyAndOrderedAroundZero() {
		long zero = this.fixture.queue().enqueue(Job.of("work", 1));
		long min = this.fixture.queue().enqueue(Job.of("work", 2).priority(Integer.MIN_VALUE));
		long minusOne = this.fixture.queue().enqueue(Job.of("work", 3).priority(-1));
		long max = this.fixture.queue().enqueue(Job.of("work", 4).priority(Integer.MAX_VALUE));
		long one = this.fixture.queue().enqueue(Job.of("work", 5).priority(1));
		assertThat(this.fixture.job(min).priority()).isEqualTo(Integer.MIN_VALUE);
		assertThat(this.fixture.job(max).priority()).isEqualTo(Integer.MAX_VALUE);
		assertThat(claim("default", 1, "work")).extracting(JobRecord::id).containsExactly(max);
		assertThat(claim("default", 10, "work")).extracting(JobRecord::id).containsExactly(one, zero, minusOne, min);
	}

	@Test
	void maxAttemptsZeroIsRejectedAndOneMeansASingleAttempt() {
		assertRejectedAndNothingWritten(() -> this.fixture.queue().enqueue(Job.of("once", null).maxAttempts(0)),
				"maxAttempts must be at least 1");
		assertRejectedAndNothingWritten(
				() -> this.fixture.queue().enqueue(Job.of("once", null).maxAttempts(Integer.MIN_VALUE)),
				"maxAttempts must be at least 1");
		assertThatThrownBy(() -> new HandlerDefinition("once", "default", 0, null, Set.of(), (payload, context) -> null,
				"once"))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("must be at least 1");
		AtomicInteger calls = new AtomicInteger();
		handler("once", (payload, context) -> {
			throw new IllegalStateException("attempt " + calls.incrementAndGet());
		});
		this.fixture.startManager((s) -> s);
		long id = this.fixture.queue().enqueue(Job.of("once", null).maxAttempts(1));
		awaitStatus(id, JobStatus.FAILED);
		JobRecord job = this.fixture.job(id);
		assertThat(job.attempts()).isEqualTo(1);
		assertThat(job.maxAttempts()).isEqualTo(1);
		assertThat(job.lastError()).startsWith("java.lang.IllegalStateException: attempt 1");
		assertThat(calls).hasValue(1);
	}

	// --- awaiting, cancelling, deadlines, the crash budget

	@Test
	void awaitReturnsTheFinalStateWithTheResultDecodedOrTheError() throws Exception {
		handler("greet", (payload, context) -> new Greeting("Ada", 2));
		handler("broken", (payload, context) -> {
			throw new IllegalStateException("printer on fire");
		});
		this.fixture.startManager((s) -> s);
		long greeted = this.fixture.queue().enqueue("greet", null);
		long broken = this.fixture.queue().enqueue(Job.of("broken", null).maxAttempts(1));
		JobResult success = this.fixture.queue().await(greeted, WAIT);
		assertThat(success.status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(success.result(Greeting.class)).isEqualTo(new Greeting("Ada", 2));
		assertThat(success.error()).isNull();
		JobResult failure = this.fixture.queue().whenFinished(broken).get(30, TimeUnit.SECONDS);
		assertThat(failure.status()).isEqualTo(JobStatus.FAILED);
		assertThat(failure.error()).contains("IllegalStateException").contains("printer on fire");
		assertThat(failure.result(Greeting.class)).isNull();
		assertThatThrownBy(() -> success.result(Integer.class)).isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("The result of job " + greeted + " cannot be decoded as java.lang.Integer");
		// A finished job is answered at once, as stored.
		assertThat(this.fixture.queue().await(greeted, Duration.ofSeconds(5)).job()).isEqualTo(success.job());
	}

	@Test
	void awaitTimesOutLeavingTheJobAsItIsAndAnUnknownJobIsAnError() {
		long waiting = this.fixture.queue().enqueue("nobody.handles.this", null);
		assertThatThrownBy(() -> this.fixture.queue().await(waiting, Duration.ofMillis(300)))
			.isInstanceOf(AwaitTimeoutException.class)
			.hasMessage("Job " + waiting + " did not finish within PT0.3S");
		assertThat(this.fixture.status(waiting)).isEqualTo(JobStatus.QUEUED);
		assertThatThrownBy(() -> this.fixture.queue().await(waiting + 1000, WAIT))
			.isInstanceOf(NoSuchJobException.class)
			.hasMessageContaining("No job " + (waiting + 1000));
	}

	@Test
	void awaitingAJobInsideTheTransactionThatEnqueuedItIsAClearError() throws Exception {
		handler("work", (payload, context) -> "done");
		this.fixture.startManager((s) -> s);
		long committed = this.fixture.queue().enqueue("work", null);
		JobResult done = this.fixture.queue().await(committed, WAIT);
		TransactionTemplate transaction = new TransactionTemplate(
				new DataSourceTransactionManager(this.database.dataSource()));
		long enqueued = transaction.execute((status) -> {
			long id = this.fixture.queue().enqueue("work", null);
			assertThatThrownBy(() -> this.fixture.queue().await(id, WAIT)).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("Job " + id + " was enqueued in the current transaction, which has not committed")
				.hasMessageContaining("would wait forever");
			// A job the transaction did not enqueue may be awaited in it.
			assertThat(this.fixture.queue().whenFinished(committed).join().job()).isEqualTo(done.job());
			return id;
		});
		assertThat(this.fixture.queue().await(enqueued, WAIT).result(String.class)).isEqualTo("done");
	}

	@Test
	void waitersOnAnotherInstanceSeeJobsFinishThere() throws Exception {
		handler("double", (payload, context) -> Integer.parseInt(payload) * 2);
		try (HikariDataSource running = this.database.newDataSource(4);
				HikariDataSource awaiting = this.database.newDataSource(2)) {
			this.fixture.startInstance((s) -> s, running);
			JobQueue elsewhere = this.fixture.otherInstanceQueue(awaiting);
			List<Long> ids = elsewhere.enqueueAll(List.of(Job.of("double", 1), Job.of("double", 2),
					Job.of("double", 3), Job.of("double", 4), Job.of("double", 5)));
			List<CompletableFuture<JobResult>> results = ids.stream().map(elsewhere::whenFinished).toList();
			CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
			assertThat(results).extracting((result) -> result.join().result(Integer.class))
				.containsExactly(2, 4, 6, 8, 10);
		}
	}

	@Test
	void cancelOfARunningJobInterruptsItsHandlerAndTheJobEndsCancelledNeverRetried() throws Exception {
		CountDownLatch running = new CountDownLatch(1);
		AtomicBoolean interrupted = new AtomicBoolean();
		AtomicBoolean sawRequest = new AtomicBoolean();
		AtomicInteger runs = new AtomicInteger();
		handler("long", (payload, context) -> {
			runs.incrementAndGet();
			running.countDown();
			try {
				Thread.sleep(60_000);
			}
			catch (InterruptedException ex) {
				sawRequest.set(context.isCancellationRequested());
				interrupted.set(true);
				throw ex;
			}
			return "finished";
		});
		this.fixture.startManager((s) -> s);
		long id = this.fixture.queue().enqueue(Job.of("long", null).maxAttempts(5));
		assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(this.fixture.queue().cancel(id)).isTrue();
		JobResult result = this.fixture.queue().await(id, WAIT);
		assertThat(result.status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(result.error()).isEqualTo(JobStore.CANCELLED_WHILE_RUNNING);
		await().atMost(WAIT).untilTrue(interrupted);
		assertThat(sawRequest).isTrue();
		JobRecord job = this.fixture.job(id);
		assertThat(job.cancelRequestedAt()).isNotNull();
		assertThat(job.attempts()).isEqualTo(1);
		assertThat(runs).hasValue(1);
		assertThat(this.fixture.listener().events("finished long")).containsExactly("finished long cancelled");
		assertThat(this.fixture.queue().cancel(id)).isFalse();
	}

	@Test
	void cancelAskedOnAnotherInstanceReachesTheHolderWithinAHeartbeat() throws Exception {
		CountDownLatch running = new CountDownLatch(1);
		AtomicInteger steps = new AtomicInteger();
		handler("steps", (payload, context) -> {
			running.countDown();
			// Cooperative: checks between steps and ignores interrupts.
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
			while (!context.isCancellationRequested() && System.nanoTime() < end) {
				steps.incrementAndGet();
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
			}
			return "stopped at step " + steps.get();
		});
		try (HikariDataSource holding = this.database.newDataSource(4);
				HikariDataSource asking = this.database.newDataSource(2)) {
			// Heartbeats every 300 ms: that is where the holder learns of the request here.
			this.fixture.startInstance((s) -> s.leaseDuration(Duration.ofMillis(900)), holding);
			JobQueue elsewhere = this.fixture.otherInstanceQueue(asking);
			long id = elsewhere.enqueue("steps", null);
			assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
			assertThat(elsewhere.cancel(id)).isTrue();
			JobResult result = elsewhere.await(id, WAIT);
			assertThat(result.status()).isEqualTo(JobStatus.CANCELLED);
			assertThat(result.result(String.class)).isNull();
			int stepsAtCancel = steps.get();
			sleepQuietly(100);
			assertThat(steps.get()).isEqualTo(stepsAtCancel);
			assertThat(this.fixture.job(id).attempts()).isEqualTo(1);
		}
	}

	@Test
	void cancelThatRacesWithCompletionLeavesExactlyOneFinalState() throws Exception {
		int total = 60;
		Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
		handler("quick", (payload, context) -> {
			runs.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger()).incrementAndGet();
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextInt(3)));
			return "ok";
		});
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < total; i++) {
			jobs.add(Job.of("quick", i).maxAttempts(3));
		}
		List<Long> ids = this.fixture.queue().enqueueAll(jobs);
		this.fixture.startManager((s) -> s.defaultConcurrency(8));
		for (long id : ids) {
			await().atMost(WAIT).pollInterval(Duration.ofMillis(1))
				.until(() -> runs.containsKey(id) || this.fixture.status(id) != JobStatus.QUEUED);
			this.fixture.queue().cancel(id);
		}
		for (long id : ids) {
			JobStatus status = this.fixture.queue().await(id, WAIT).status();
			assertThat(status).isIn(JobStatus.SUCCEEDED, JobStatus.CANCELLED);
		}
		assertThat(runs.values()).allSatisfy((count) -> assertThat(count).hasValueLessThanOrEqualTo(1));
		assertThat(this.fixture.count("attempts > 1 OR status NOT IN ('SUCCEEDED', 'CANCELLED')")).isZero();
		// One final event per job, whoever won.
		List<String> finals = this.fixture.listener().events().stream()
			.filter((event) -> event.startsWith("finished quick") || event.startsWith("cancelled "))
			.toList();
		assertThat(finals).hasSize(total);
	}

	@Test
	void aJobWhoseCancelWasAskedForIsNeverQueuedAgain() {
		long failing = this.fixture.queue().enqueue(Job.of("work", null).maxAttempts(5));
		long unstarted = this.fixture.queue().enqueue(Job.of("work", null).maxAttempts(5));
		long lost = this.fixture.queue().enqueue(Job.of("work", null).maxAttempts(5));
		JobStore store = this.fixture.store();
		Map<Long, JobRecord> claimed = new java.util.HashMap<>();
		claim("default", 2, "work").forEach((job) -> claimed.put(job.id(), job));
		store.claim(new ClaimRequest("crashed", "default", List.of("work"), 1, 1))
			.forEach((job) -> claimed.put(job.id(), job));
		for (long id : List.of(failing, unstarted, lost)) {
			assertThat(store.requestCancel(id)).isTrue();
		}
		// A failure the instance recorded before it heard of the request does not retry it.
		assertThat(store.reschedule(new Lease(failing, claimed.get(failing).leaseToken()), "boom", Duration.ZERO))
			.isTrue();
		assertThat(store.release(new Lease(unstarted, claimed.get(unstarted).leaseToken()))).isTrue();
		Reaper reaper = this.fixture.reaper(store);
		await().atMost(WAIT).until(() -> !reaper.runOnce().isEmpty());
		for (long id : List.of(failing, unstarted, lost)) {
			assertThat(this.fixture.status(id)).isEqualTo(JobStatus.CANCELLED);
			assertThat(this.fixture.job(id).finishedAt()).isNotNull();
		}
		assertThat(this.fixture.job(lost).lastError()).startsWith(JobStore.CANCELLED_WHILE_RUNNING);
		assertThat(this.fixture.listener().events("reaped")).containsExactly("reaped work cancelled");
		assertThat(store.requestCancel(failing)).isFalse();
	}

	@Test
	void jobNotStartedByItsDeadlineIsCancelledAndNeverStarts() {
		AtomicInteger runs = new AtomicInteger();
		handler("late", (payload, context) -> runs.incrementAndGet());
		long claimedLate = this.fixture.queue()
			.enqueue(Job.of("late", null).deadline(Instant.parse("2000-01-01T00:00:00Z")));
		long inTime = this.fixture.queue().enqueue(Job.of("late", null).expireAfter(Duration.ofHours(1)));
		this.fixture.startManager((s) -> s);
		awaitStatus(claimedLate, JobStatus.CANCELLED);
		awaitStatus(inTime, JobStatus.SUCCEEDED);
		assertThat(runs).hasValue(1);
		JobRecord late = this.fixture.job(claimedLate);
		assertThat(late.lastError()).isEqualTo("Deadline 2000-01-01T00:00:00Z passed before the job started");
		assertThat(late.deadline()).isEqualTo(Instant.parse("2000-01-01T00:00:00Z"));
		assertThat(this.fixture.listener().events("finished late")).contains("finished late expired");
		JobRecord ran = this.fixture.job(inTime);
		assertThat(Duration.between(ran.createdAt(), ran.deadline()).toMillis()).isCloseTo(3_600_000L,
				org.assertj.core.data.Offset.offset(5L));
	}

	@Test
	void queuedJobsPastTheirDeadlineAreCancelledByTheSweepEvenWithNoHandlerRunning() throws Exception {
		long expiring = this.fixture.queue().enqueue(Job.of("nobody.handles.this", null)
			.expireAfter(Duration.ofMillis(300)));
		long later = this.fixture.queue().enqueue(Job.of("nobody.handles.this", null)
			.expireAfter(Duration.ofHours(1)));
		long none = this.fixture.queue().enqueue("nobody.handles.this", null);
		CompletableFuture<JobResult> awaited = this.fixture.queue().whenFinished(expiring);
		Reaper reaper = this.fixture.reaper(this.fixture.store());
		await().atMost(WAIT).until(() -> !reaper.expireOnce().isEmpty());
		JobResult result = awaited.get(30, TimeUnit.SECONDS);
		assertThat(result.status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(result.error()).startsWith("Deadline ").endsWith(" passed before the job started");
		assertThat(this.fixture.status(later)).isEqualTo(JobStatus.QUEUED);
		assertThat(this.fixture.status(none)).isEqualTo(JobStatus.QUEUED);
		assertThat(this.fixture.listener().events("expired")).containsExactly("expired default nobody.handles.this");
		assertThat(reaper.expireOnce()).isEmpty();
	}

	@Test
	void deadlinesOutsideWhatTheDatabasesStoreOrNotInTheFutureAreRejected() {
		assertThatThrownBy(() -> Job.of("work", null).deadline(Instant.parse("0999-12-31T23:59:59Z")))
			.isInstanceOf(InvalidJobException.class).hasMessageContaining("deadline must be from");
		assertThatThrownBy(() -> Job.of("work", null).expireAfter(Duration.ZERO))
			.isInstanceOf(InvalidJobException.class).hasMessage("expireAfter must be more than zero");
		assertThatThrownBy(() -> Job.of("work", null).expireAfter(Duration.ofSeconds(-1)))
			.isInstanceOf(InvalidJobException.class).hasMessageContaining("expireAfter must not be negative");
		assertThat(this.fixture.count("1 = 1")).isZero();
	}

	@Test
	void jobWhoseWorkerIsLostMaxCrashesTimesFailsWhateverAttemptsRemain() {
		long id = this.fixture.queue().enqueue(Job.of("poison", null).maxAttempts(10));
		JobStore store = this.fixture.store();
		Reaper reaper = this.fixture.reaper(store);
		// A handler failure is retried, and is not a crash.
		JobRecord first = claim("default", 1, "poison").get(0);
		assertThat(store.reschedule(new Lease(id, first.leaseToken()), "an ordinary failure", Duration.ZERO)).isTrue();
		assertThat(this.fixture.job(id).crashes()).isZero();
		for (int crash = 1; crash <= Reaper.DEFAULT_MAX_CRASHES; crash++) {
			assertThat(store.claim(new ClaimRequest("doomed-" + crash, "default", List.of("poison"), 1, 1))).hasSize(1);
			List<ReapedJob> reaped = new ArrayList<>();
			await().atMost(WAIT).until(() -> reaped.addAll(reaper.runOnce()));
			assertThat(reaped).extracting(ReapedJob::crashes).containsExactly(crash);
			assertThat(this.fixture.job(id).crashes()).isEqualTo(crash);
		}
		JobRecord job = this.fixture.job(id);
		assertThat(job.status()).isEqualTo(JobStatus.FAILED);
		assertThat(job.attempts()).isEqualTo(1 + Reaper.DEFAULT_MAX_CRASHES).isLessThan(job.maxAttempts());
		assertThat(job.lastError()).startsWith("Worker lost 3 times (lease expired before the attempt finished")
			.contains("sqlqueue.retry.max-crashes is 3");
		assertThat(this.fixture.listener().events("reaped"))
			.containsExactly("reaped poison requeued", "reaped poison requeued", "reaped poison failed");
		// An operator's retry brings a fresh budget of attempts and crashes.
		assertThat(this.fixture.queue().retry(id)).isTrue();
		assertThat(this.fixture.job(id).crashes()).isZero();
	}

	// --- leases, fencing, reaping

	@Test
	void lateWriteOfAWorkerWhoseJobWasReapedChangesNothing() {
		long id = this.fixture.queue().enqueue("work", null);
		JobStore store = this.fixture.store();
		JobRecord first = store.claim(new ClaimRequest("first", "default", List.of("work"), 1, 1)).get(0);
		await().atMost(WAIT).until(() -> !store.reapExpired(10, Reaper.DEFAULT_MAX_CRASHES).isEmpty());
		JobRecord second = claim("default", 1, "work").get(0);
		assertThat(second.attempts()).isEqualTo(2);
		assertThat(second.leaseToken()).isNotEqualTo(first.leaseToken());
		Lease stale = new Lease(id, first.leaseToken());
		assertThat(store.complete(List.of(new Completion(stale, "\"late\"")))).containsExactly(false);
		assertThat(store.fail(stale, "late")).isFalse();
		assertThat(store.reschedule(stale, "late", Duration.ZERO)).isFalse();
		assertThat(store.extendLeases(List.of(stale), Duration.ofMinutes(1)).lost()).containsExactly(stale);
		assertThat(store.complete(List.of(new Completion(new Lease(id, second.leaseToken()), "\"mine\""))))
			.containsExactly(true);
		assertThat(this.fixture.job(id).result()).isEqualTo("\"mine\"");
	}

	@Test
	void reaperRequeuesExpiredLeasesAndFailsJobsOutOfAttempts() {
		long retry = this.fixture.queue().enqueue(Job.of("work", null).maxAttempts(2));
		long last = this.fixture.queue().enqueue(Job.of("work", null).maxAttempts(1));
		long alive = this.fixture.queue().enqueue(Job.of("work", null));
		JobStore store = this.fixture.store();
		store.claim(new ClaimRequest("crashed", "default", List.of("work"), 2, 1));
		store.claim(new ClaimRequest("alive", "default", List.of("work"), 1, 600_000));
		Reaper reaper = this.fixture.reaper(store);
		List<ReapedJob> reaped = new ArrayList<>();
		await().atMost(WAIT).until(() -> {
			reaped.addAll(reaper.runOnce());
			return reaped.size() == 2;
		});
		assertThat(this.fixture.status(retry)).isEqualTo(JobStatus.QUEUED);
		assertThat(this.fixture.job(retry).lastError()).contains("Lease expired");
		assertThat(this.fixture.status(last)).isEqualTo(JobStatus.FAILED);
		assertThat(this.fixture.status(alive)).isEqualTo(JobStatus.RUNNING);
		assertThat(reaped).extracting(ReapedJob::previousOwner).containsOnly("crashed");
		assertThat(reaper.runOnce()).isEmpty();
	}

	@Test
	void jobWhoseInstanceLostTheDatabaseIsReapedAndRerunElsewhereAndTheLateCompletionIsFenced() throws Exception {
		CountDownLatch firstAttemptRunning = new CountDownLatch(1);
		CountDownLatch finishFirstAttempt = new CountDownLatch(1);
		List<String> runs = Collections.synchronizedList(new ArrayList<>());
		handler("slow", (payload, context) -> {
			runs.add("attempt " + context.attempt());
			if (context.attempt() == 1) {
				firstAttemptRunning.countDown();
				finishFirstAttempt.await(30, TimeUnit.SECONDS);
				return "first";
			}
			return "second";
		});
		try (HikariDataSource firstPool = this.database.newDataSource(8)) {
			SwitchableDataSource firstConnection = new SwitchableDataSource(firstPool);
			Manager first = this.fixture.startInstance((s) -> s.leaseDuration(Duration.ofMillis(900)),
					firstConnection);
			long id = this.fixture.queue().enqueue("slow", null);
			assertThat(firstAttemptRunning.await(30, TimeUnit.SECONDS)).isTrue();
			first.wakeUp(Set.of());
			firstConnection.cut();
			Reaper reaper = this.fixture.reaper(this.fixture.store());
			await().atMost(WAIT).until(() -> !reaper.runOnce().isEmpty());
			Manager second = this.fixture.startManager((s) -> s);
			awaitStatus(id, JobStatus.SUCCEEDED);
			assertThat(this.fixture.job(id).result()).isEqualTo("\"second\"");
			firstConnection.restore();
			finishFirstAttempt.countDown();
			await().atMost(WAIT).until(() -> first.leaseLosses() >= 1);
			assertThat(first.leaseLosses()).isEqualTo(1);
			assertThat(second.leaseLosses()).isZero();
			JobRecord job = this.fixture.job(id);
			assertThat(job.status()).isEqualTo(JobStatus.SUCCEEDED);
			assertThat(job.result()).isEqualTo("\"second\"");
			assertThat(job.attempts()).isEqualTo(2);
			assertThat(runs).containsExactly("attempt 1", "attempt 2");
			assertThat(this.fixture.listener().events("lease lost")).containsExactly("lease lost slow");
			assertThat(this.fixture.listener().events("reaped")).containsExactly("reaped slow requeued");
			first.stop();
		}
	}

	@Test
	void managerSurvivesLosingTheDatabaseAndCarriesOn() {
		handler("work", (payload, context) -> null);
		try (HikariDataSource pool = this.database.newDataSource(8)) {
			SwitchableDataSource connection = new SwitchableDataSource(pool);
			this.fixture.startInstance((s) -> s, connection);
			long before = this.fixture.queue().enqueue("work", null);
			awaitStatus(before, JobStatus.SUCCEEDED);
			connection.cut();
			long during = this.fixture.queue().enqueue("work", null);
			await().pollDelay(Duration.ofMillis(300)).atMost(WAIT).until(() -> connection.refusals() > 0);
			assertThat(this.fixture.status(during)).isEqualTo(JobStatus.QUEUED);
			connection.restore();
			awaitStatus(during, JobStatus.SUCCEEDED);
		}
	}

	@Test
	void completionThatCannotBeWrittenIsTriedAgain() {
		try (HikariDataSource pool = this.database.newDataSource(8)) {
			SwitchableDataSource connection = new SwitchableDataSource(pool);
			handler("cuts", (payload, context) -> {
				connection.cut();
				return "done";
			});
			this.fixture.startInstance((s) -> s, connection);
			long id = this.fixture.queue().enqueue("cuts", null);
			await().atMost(WAIT).until(() -> connection.refusals() > 0);
			connection.restore();
			// No reaper runs here: only another try of the completion can finish the job.
			awaitStatus(id, JobStatus.SUCCEEDED);
			assertThat(this.fixture.job(id).attempts()).isEqualTo(1);
			assertThat(this.fixture.job(id).result()).isEqualTo("\"done\"");
		}
	}

	// --- faults: frozen workers, refused and lost writes

	/**
	 * A job claimed ahead of its worker, whose lease ran out while the worker was stuck (here:
	 * the database unreachable, so no heartbeat landed) and which another instance then ran,
	 * is never started by the stuck worker when it comes free.
	 */
	@Test
	void claimedJobWhoseLeaseMayHaveRunOutIsNeverStarted() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		AtomicBoolean firstSlow = new AtomicBoolean(true);
		AtomicInteger victimRuns = new AtomicInteger();
		try (HikariDataSource stuckPool = this.database.newDataSource(8);
				HikariDataSource otherPool = this.database.newDataSource(8)) {
			SwitchableDataSource connection = new SwitchableDataSource(stuckPool);
			handler("warm", (payload, context) -> null);
			handler("slow", (payload, context) -> {
				if (firstSlow.getAndSet(false)) {
					connection.cut();
					release.await(60, TimeUnit.SECONDS);
				}
				return null;
			});
			handler("victim", (payload, context) -> victimRuns.incrementAndGet());
			Manager stuck = this.fixture.startInstance(
					(s) -> s.defaultConcurrency(1).leaseDuration(Duration.ofSeconds(1)), connection);
			// Enough fast jobs that the lane's smoothed attempt time is short (prefetch room), even
			// when the first attempt, on a cold JVM of a busy machine, took a second or more: each
			// attempt weighs a tenth, so 60 leave a thousandth of the first one's time.
			List<Long> warm = this.fixture.queue().enqueueAll(java.util.stream.IntStream.range(0, 60)
				.mapToObj((i) -> Job.of("warm", i)).toList());
			await().atMost(WAIT).until(() -> this.fixture.status(warm.get(59)) == JobStatus.SUCCEEDED);
			// Fast jobs so far: the lane claims both at once, the victim waiting behind the slow job.
			List<Long> ids = this.fixture.queue().enqueueAll(List.of(Job.of("slow", 1), Job.of("victim", 2)));
			long victim = ids.get(1);
			await().atMost(WAIT).until(() -> this.fixture.status(victim) == JobStatus.RUNNING);
			Reaper reaper = this.fixture.reaper(this.fixture.store());
			await().atMost(WAIT).until(() -> reaper.runOnce().stream().anyMatch((job) -> job.id() == victim));
			this.fixture.startInstance((s) -> s, otherPool);
			awaitStatus(victim, JobStatus.SUCCEEDED);
			assertThat(victimRuns).hasValue(1);
			connection.restore();
			release.countDown();
			await().atMost(WAIT).until(() -> stuck.busyWorkers().values().stream().allMatch((busy) -> busy == 0));
			assertThat(victimRuns).hasValue(1);
			this.fixture.close();
		}
	}

	/**
	 * A worker frozen inside a transaction holds its row locks: the reaper passes over that
	 * row instead of waiting for it, and re-queues the frozen worker's other jobs.
	 */
	@Test
	void reaperPassesOverARowLockedByAFrozenTransaction() throws Exception {
		assumeTrue(database() != TestDatabase.SQLITE,
				"SQLite has no row locks: an open write transaction holds the whole database");
		List<Long> ids = this.fixture.queue().enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2)));
		List<JobRecord> claimed = this.fixture.store()
			.claim(new ClaimRequest("frozen", "default", List.of("work"), 2, 1));
		assertThat(claimed).hasSize(2);
		long locked = ids.get(0);
		try (OpenTransaction<Integer> frozen = OpenTransaction.begin(this.database.dataSource(),
				() -> this.fixture.jdbc().update("UPDATE " + this.fixture.table()
						+ " SET version = version WHERE id = ?", locked))) {
			assertThat(frozen.result()).isEqualTo(1);
			Reaper reaper = this.fixture.reaper(this.fixture.store());
			await().atMost(WAIT).until(() -> CompletableFuture.supplyAsync(reaper::runOnce)
				.get(5, TimeUnit.SECONDS)
				.stream()
				.anyMatch((job) -> job.id() == ids.get(1)));
			assertThat(this.fixture.status(ids.get(1))).isEqualTo(JobStatus.QUEUED);
			assertThat(this.fixture.status(locked)).isEqualTo(JobStatus.RUNNING);
		}
		assertThat(this.fixture.reaper(this.fixture.store()).runOnce()).extracting(ReapedJob::id).containsExactly(locked);
	}

	/**
	 * A caller's transaction that enqueues a job after others (the documented way) locks their
	 * rows until it ends: here a queued job past its deadline and a running job of a dead
	 * worker. The reaper's pass, deadline sweep included, passes over both instead of waiting,
	 * and reaps another job whose lease expired meanwhile at once; once the caller commits,
	 * the next pass ends the two held ones too.
	 */
	@Test
	void reaperReapsOtherJobsWhileACallersTransactionHoldsAnExpiredAndAPassedDeadlineJob() throws Exception {
		assumeTrue(database() != TestDatabase.SQLITE,
				"SQLite has no row locks: an open write transaction holds the whole database");
		long pastDeadline = this.fixture.queue()
			.enqueue(Job.of("nobody.handles.this", null).deadline(Instant.parse("2000-01-01T00:00:00Z")));
		long heldRunning = this.fixture.queue().enqueue("work", 1);
		assertThat(this.fixture.store().claim(new ClaimRequest("dead", "default", List.of("work"), 1, 1)))
			.extracting(JobRecord::id).containsExactly(heldRunning);
		Reaper reaper = this.fixture.reaper(this.fixture.store());
		try (OpenTransaction<Long> caller = OpenTransaction.begin(this.database.dataSource(),
				() -> this.fixture.queue().enqueue(Job.of("next", null).after(pastDeadline, heldRunning)))) {
			long dependent = caller.result();
			long other = this.fixture.queue().enqueue("work", 2);
			assertThat(this.fixture.store().claim(new ClaimRequest("dead", "default", List.of("work"), 1, 1)))
				.extracting(JobRecord::id).containsExactly(other);
			List<Long> reaped = new ArrayList<>();
			await().atMost(WAIT).until(() -> {
				// One pass as the reaper's loop makes it, bounded so that a wait on the caller's rows fails.
				CompletableFuture<List<Long>> pass = CompletableFuture.supplyAsync(() -> {
					List<Long> ids = new ArrayList<>(reaper.runOnce().stream().map(ReapedJob::id).toList());
					assertThat(reaper.expireOnce()).as("the job past its deadline is held").isEmpty();
					return ids;
				});
				reaped.addAll(pass.get(5, TimeUnit.SECONDS));
				return reaped.contains(other);
			});
			assertThat(reaped).doesNotContain(heldRunning);
			assertThat(this.fixture.status(other)).isEqualTo(JobStatus.QUEUED);
			assertThat(this.fixture.status(heldRunning)).isEqualTo(JobStatus.RUNNING);
			assertThat(this.fixture.status(pastDeadline)).isEqualTo(JobStatus.QUEUED);
			caller.commit();
			assertThat(reaper.expireOnce()).extracting(io.sqlqueue.ExpiredJob::id).containsExactly(pastDeadline);
			assertThat(reaper.runOnce()).extracting(ReapedJob::id).containsExactly(heldRunning);
			assertThat(this.fixture.status(pastDeadline)).isEqualTo(JobStatus.CANCELLED);
			assertThat(this.fixture.status(heldRunning)).isEqualTo(JobStatus.QUEUED);
			assertThat(this.fixture.status(dependent)).isEqualTo(JobStatus.CANCELLED);
		}
	}

	/**
	 * Settling the end that the deadline sweep gives a job may need a row that a caller's
	 * transaction holds: here its waiting dependent, after which the caller enqueues a job.
	 * The sweep waits for that row at most {@link JobStore#OWN_LOCK_WAIT}, leaves the job as
	 * it was for the next pass, and ends the other jobs meanwhile.
	 */
	@Test
	void deadlineSweepLeavesAJobWhoseDependentACallersTransactionHoldsForTheNextPass() throws Exception {
		assumeTrue(database() != TestDatabase.SQLITE,
				"SQLite has no row locks: an open write transaction holds the whole database");
		Instant passed = Instant.parse("2000-01-01T00:00:00Z");
		long held = this.fixture.queue().enqueue(Job.of("nobody.handles.this", null).deadline(passed));
		long dependent = this.fixture.queue().enqueue(Job.of("nobody.handles.this", null).after(held));
		long other = this.fixture.queue().enqueue(Job.of("nobody.handles.this", null).deadline(passed));
		Reaper reaper = this.fixture.reaper(this.fixture.store());
		long next;
		try (OpenTransaction<Long> caller = OpenTransaction.begin(this.database.dataSource(),
				() -> this.fixture.queue().enqueue(Job.of("next", null).after(dependent)))) {
			next = caller.result();
			assertThat(CompletableFuture.supplyAsync(reaper::expireOnce).get(5, TimeUnit.SECONDS))
				.extracting(io.sqlqueue.ExpiredJob::id).containsExactly(other);
			assertThat(this.fixture.status(held)).isEqualTo(JobStatus.QUEUED);
			assertThat(this.fixture.status(dependent)).isEqualTo(JobStatus.WAITING);
			caller.commit();
		}
		assertThat(reaper.expireOnce()).extracting(io.sqlqueue.ExpiredJob::id).containsExactly(held);
		assertThat(this.fixture.status(held)).isEqualTo(JobStatus.CANCELLED);
		assertThat(this.fixture.status(dependent)).isEqualTo(JobStatus.CANCELLED);
		assertThat(this.fixture.status(next)).isEqualTo(JobStatus.CANCELLED);
	}

	/** A completion write that failed just before stop is tried again before stop returns. */
	@Test
	void stopWaitsForACompletionWriteToBeTriedAgain() throws Exception {
		AtomicInteger runs = new AtomicInteger();
		try (HikariDataSource pool = this.database.newDataSource(8)) {
			SwitchableDataSource connection = new SwitchableDataSource(pool);
			handler("cuts", (payload, context) -> {
				runs.incrementAndGet();
				connection.cut();
				return "done";
			});
			Manager manager = this.fixture.startInstance((s) -> s, connection);
			long id = this.fixture.queue().enqueue("cuts", null);
			await().atMost(WAIT).until(() -> runs.get() == 1 && connection.refusals() > 0);
			// The flush (2 ms after the handler returned) has failed; its next try waits 500 ms.
			await().pollDelay(Duration.ofMillis(100)).atMost(WAIT).until(() -> true);
			connection.restore();
			manager.stop();
			assertThat(this.fixture.status(id)).isEqualTo(JobStatus.SUCCEEDED);
			assertThat(this.fixture.job(id).attempts()).isEqualTo(1);
			assertThat(runs).hasValue(1);
			assertThat(manager.leaseLosses()).isZero();
		}
	}

	/**
	 * A row the database refuses (here a store that refuses one result, as PostgreSQL refuses
	 * what jsonb cannot hold) holds up no other job of its batch, and its own job is recorded
	 * as succeeded without the result: nothing runs again.
	 */
	@Test
	void completionTheDatabaseRefusesIsRecordedAloneWithoutItsResult() {
		JobStore refusing = new JobStore(this.database.dataSource(), this.database.dialect(), this.database.schema(),
				claimMethod()) {
			@Override
			public CompletedJobs completeUnlessHeld(List<Completion> completions) {
				if (completions.stream().anyMatch((completion) -> "\"poison\"".equals(completion.result()))) {
					throw new org.springframework.dao.DataIntegrityViolationException("poison refused (test)");
				}
				return super.completeUnlessHeld(completions);
			}
		};
		Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
		handler("maybe", (payload, context) -> {
			runs.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger()).incrementAndGet();
			return payload.contains("poison") ? "poison" : "fine";
		});
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			jobs.add(Job.of("maybe", (i == 5) ? "poison" : "ok"));
		}
		List<Long> ids = this.fixture.queue().enqueueAll(jobs);
		Manager manager = this.fixture.startManager(refusing,
				QueueFixture.fastSettings().defaultConcurrency(8).completionLinger(Duration.ofMillis(50)).build(), 16);
		await().atMost(WAIT).until(() -> this.fixture.count("status = 'SUCCEEDED'") == jobs.size());
		JobRecord poisoned = this.fixture.job(ids.get(5));
		assertThat(poisoned.result()).isNull();
		assertThat(poisoned.lastError()).startsWith("Result not stored: the database refused it")
			.contains("poison refused");
		for (int i = 0; i < ids.size(); i++) {
			if (i != 5) {
				assertThat(this.fixture.job(ids.get(i)).result()).isEqualTo("\"fine\"");
			}
		}
		assertThat(runs.values()).allSatisfy((count) -> assertThat(count).hasValue(1));
		assertThat(manager.leaseLosses()).isZero();
	}

	/**
	 * Writes that landed but whose answer was lost (a failover during the commit) are tried
	 * again; the try finds the row finished under this attempt's token and counts no lost
	 * lease.
	 */
	@Test
	void writesWhoseAnswerWasLostAreResolvedNotCountedAsLostLeases() {
		AtomicBoolean completionAnswerLost = new AtomicBoolean(true);
		AtomicBoolean retryAnswerLost = new AtomicBoolean(true);
		JobStore losing = new JobStore(this.database.dataSource(), this.database.dialect(), this.database.schema(),
				claimMethod()) {
			@Override
			public CompletedJobs completeUnlessHeld(List<Completion> completions) {
				CompletedJobs done = super.completeUnlessHeld(completions);
				if (completionAnswerLost.getAndSet(false)) {
					throw new org.springframework.transaction.TransactionSystemException("answer lost (test)");
				}
				return done;
			}

			@Override
			public boolean reschedule(Lease lease, String error, Duration delay) {
				boolean held = super.reschedule(lease, error, delay);
				if (retryAnswerLost.getAndSet(false)) {
					throw new org.springframework.dao.DataAccessResourceFailureException("answer lost (test)");
				}
				return held;
			}
		};
		AtomicInteger runs = new AtomicInteger();
		handler("flaky", (payload, context) -> {
			if (runs.incrementAndGet() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
			return "second";
		});
		// A backoff longer than the write's next try, so the job is not claimed again in between.
		Manager manager = this.fixture.startManager(losing, QueueFixture.fastSettings()
			.retryPolicy(new io.sqlqueue.handler.RetryPolicy(3, Duration.ofSeconds(2), 2.0, Duration.ofSeconds(2), 0.0))
			.build(), 4);
		long id = this.fixture.queue().enqueue("flaky", null);
		awaitStatus(id, JobStatus.SUCCEEDED);
		await().atMost(WAIT).until(() -> this.fixture.listener().events("finished").size() == 2);
		assertThat(this.fixture.job(id).attempts()).isEqualTo(2);
		assertThat(this.fixture.job(id).result()).isEqualTo("\"second\"");
		assertThat(completionAnswerLost).isFalse();
		assertThat(retryAnswerLost).isFalse();
		assertThat(manager.leaseLosses()).isZero();
		assertThat(this.fixture.listener().events("lease lost")).isEmpty();
	}

	@Test
	void jobContextExtendsTheLease() {
		handler("long", (payload, context) -> {
			JobRecord before = this.fixture.job(context.jobId());
			Thread.sleep(50);
			context.extendLease();
			JobRecord after = this.fixture.job(context.jobId());
			return after.leaseExpiresAt().isAfter(before.leaseExpiresAt());
		});
		this.fixture.startManager((s) -> s);
		long id = this.fixture.queue().enqueue("long", null);
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(this.fixture.job(id).result()).isEqualTo("true");
	}

	// --- groups

	@Test
	void jobsOfOneGroupRunOneAtATimeInOrder() throws Exception {
		Map<String, List<Integer>> order = new ConcurrentHashMap<>();
		Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
		AtomicBoolean overlapped = new AtomicBoolean();
		handler("grouped", (payload, context) -> {
			String[] parts = payload.replace("\"", "").split(":");
			AtomicInteger now = running.computeIfAbsent(parts[0], (group) -> new AtomicInteger());
			if (now.incrementAndGet() > 1) {
				overlapped.set(true);
			}
			Thread.sleep(10);
			order.computeIfAbsent(parts[0], (group) -> Collections.synchronizedList(new ArrayList<>()))
				.add(Integer.parseInt(parts[1]));
			now.decrementAndGet();
			return null;
		});
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			jobs.add(Job.of("grouped", "g:" + i).groupKey("g"));
			jobs.add(Job.of("grouped", "h:" + i).groupKey("h"));
			jobs.add(Job.of("grouped", "free" + i + ":" + i));
		}
		this.fixture.queue().enqueueAll(jobs);
		// Two instances, so that claims race each other as well as workers.
		try (HikariDataSource one = this.database.newDataSource(8); HikariDataSource two = this.database.newDataSource(8)) {
			this.fixture.startInstance((s) -> s.defaultConcurrency(6).batchSize(3), one);
			this.fixture.startInstance((s) -> s.defaultConcurrency(6).batchSize(3), two);
			await().atMost(WAIT).until(() -> this.fixture.count("status = 'SUCCEEDED'") == jobs.size());
			this.fixture.close();
		}
		assertThat(overlapped).isFalse();
		assertThat(order.get("g")).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
		assertThat(order.get("h")).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
	}


	/**
	 * The interleaving that once let two jobs of a group run at once: an older enqueue
	 * commits after a younger job of its group was claimed, while that claim is still open.
	 * A second claim then sees the younger job as waiting (the first claim has not committed)
	 * and the older one as first in its group. It must not take it: at most one job of a
	 * group runs, whatever the order of commits.
	 */
	@Test
	void aGroupNeverRunsTwoJobsWhateverTheOrderOfCommits() throws Exception {
		assumeTrue(database() != TestDatabase.SQLITE,
				"SQLite has one writer at a time: an open enqueue holds off every claim, so this interleaving "
						+ "cannot happen there (the stress test below covers SQLite)");
		DataSource dataSource = this.database.dataSource();
		JobQueue queue = this.fixture.queue();
		try (OpenTransaction<Long> olderEnqueue = OpenTransaction.begin(dataSource,
				() -> queue.enqueue(Job.of("step", 1).groupKey("g")))) {
			long older = olderEnqueue.result();
			long younger = queue.enqueue(Job.of("step", 2).groupKey("g"));
			assertThat(younger).isGreaterThan(older);
			try (OpenTransaction<List<JobRecord>> firstClaim = OpenTransaction.begin(dataSource,
					() -> claim("default", 10, "step"))) {
				assertThat(firstClaim.result()).extracting(JobRecord::id).containsExactly(younger);
				olderEnqueue.commit();
				CompletableFuture<List<JobRecord>> secondClaim = CompletableFuture
					.supplyAsync(() -> claim("default", 10, "step"));
				// The second claim either waits for the first (the group's running-job index) or
				// returns at once; either way it is under way before the first commits.
				await().pollDelay(Duration.ofMillis(300)).atMost(WAIT).until(() -> true);
				firstClaim.commit();
				assertThat(secondClaim.get(30, TimeUnit.SECONDS)).isEmpty();
			}
			assertThat(this.fixture.count("group_key = 'g' AND status = 'RUNNING'")).isEqualTo(1);
			assertThat(this.fixture.status(older)).isEqualTo(JobStatus.QUEUED);
		}
	}

	@Test
	void operatorRetryOfAnOldFailedJobWaitsForItsGroup() {
		long old = this.fixture.queue().enqueue(Job.of("step", 1).groupKey("g").maxAttempts(1));
		JobRecord first = claim("default", 10, "step").get(0);
		assertThat(this.fixture.store().fail(new Lease(old, first.leaseToken()), "boom")).isTrue();
		long next = this.fixture.queue().enqueue(Job.of("step", 2).groupKey("g"));
		JobRecord running = claim("default", 10, "step").get(0);
		assertThat(running.id()).isEqualTo(next);
		assertThat(this.fixture.queue().retry(old)).isTrue();
		assertThat(claim("default", 10, "step")).isEmpty();
		this.fixture.store().complete(List.of(new Completion(new Lease(next, running.leaseToken()), null)));
		assertThat(claim("default", 10, "step")).extracting(JobRecord::id).containsExactly(old);
	}

	/**
	 * Enqueuers whose transactions commit out of id order, and three instances claiming in
	 * small batches: no two jobs of a group ever overlap, and every job runs exactly once.
	 */
	@Test
	void groupsHoldUnderConcurrentEnqueuersAndSeveralInstances() throws Exception {
		int enqueuers = 3;
		int transactionsEach = 40;
		Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
		Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
		AtomicBoolean overlapped = new AtomicBoolean();
		handler("stress", (payload, context) -> {
			String group = payload.replace("\"", "");
			AtomicInteger now = running.computeIfAbsent(group, (key) -> new AtomicInteger());
			if (!group.isEmpty() && now.incrementAndGet() > 1) {
				overlapped.set(true);
			}
			runs.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger()).incrementAndGet();
			Thread.sleep(2);
			if (!group.isEmpty()) {
				now.decrementAndGet();
			}
			return null;
		});
		AtomicInteger enqueued = new AtomicInteger();
		List<HikariDataSource> pools = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				HikariDataSource pool = this.database.newDataSource(8);
				pools.add(pool);
				this.fixture.startInstance((s) -> s.defaultConcurrency(4).batchSize(4), pool);
			}
			TransactionTemplate transaction = new TransactionTemplate(
					new DataSourceTransactionManager(this.database.dataSource()));
			List<CompletableFuture<Void>> writers = new ArrayList<>();
			for (int w = 0; w < enqueuers; w++) {
				writers.add(CompletableFuture.runAsync(() -> {
					java.util.Random random = new java.util.Random();
					for (int t = 0; t < transactionsEach; t++) {
						transaction.executeWithoutResult((status) -> {
							for (int j = 0; j < 1 + random.nextInt(3); j++) {
								int group = random.nextInt(5);
								Job job = (group == 0) ? Job.of("stress", "")
										: Job.of("stress", "g" + group).groupKey("g" + group);
								this.fixture.queue().enqueue(job);
								enqueued.incrementAndGet();
							}
							// Commits come out of id order: the next transaction may commit first.
							sleepQuietly(random.nextInt(4));
						});
					}
				}));
			}
			CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
			await().atMost(WAIT).until(() -> this.fixture.count("status = 'SUCCEEDED'") == enqueued.get());
			this.fixture.close();
		}
		finally {
			pools.forEach(HikariDataSource::close);
		}
		assertThat(overlapped).isFalse();
		assertThat(runs).hasSize(enqueued.get());
		assertThat(runs.values()).allSatisfy((count) -> assertThat(count).hasValue(1));
	}

	private static void sleepQuietly(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	// --- recurring jobs

	/**
	 * Schedules take their ticks by compare-and-set on every database, whatever the claim
	 * method: the compare-and-set variants of the suite would only run these again.
	 */
	private Schedules schedules(javax.sql.DataSource dataSource) {
		assumeTrue(claimMethod() == database().dialect().claimMethod(),
				"Schedules do not depend on the claim method; run with the database's own");
		return new DefaultSchedules(new ScheduleStore(dataSource, this.database.dialect(), this.database.schema()),
				new DefaultJobQueue(this.fixture.newStore(dataSource), this.fixture.codec(), this.fixture.handlers(),
						QueueFixture.FAST_RETRIES),
				this.fixture.handlers(), JobListener.NONE);
	}

	private void moveNextRunBack(String schedule, Duration by) {
		ScheduleStore store = new ScheduleStore(this.database.dataSource(), this.database.dialect(),
				this.database.schema());
		ScheduleRow row = store.find(schedule).orElseThrow();
		store.setPaused(schedule, row.version(), row.paused(), row.databaseNow().minus(by));
	}

	private List<JobRecord> jobsOf(String handler) {
		return this.fixture.jdbc()
			.queryForList("SELECT id FROM " + this.fixture.table() + " WHERE handler = ? ORDER BY id", Long.class,
					handler)
			.stream()
			.map(this.fixture::job)
			.toList();
	}

	/**
	 * Three instances firing one schedule every second for 12 ticks: one job per tick, none
	 * missed (each tick is a race of three firers; 30 ticks took 30 s on each database).
	 */
	@Test
	void threeInstancesFireEachTickOfAScheduleOnce() throws Exception {
		handler("tick", (payload, context) -> null);
		List<HikariDataSource> pools = new ArrayList<>();
		try {
			List<Schedules> instances = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				HikariDataSource pool = this.database.newDataSource(4);
				pools.add(pool);
				instances.add(schedules(pool));
			}
			instances.get(0).create(ScheduleDefinition.of("every-second", "tick", Recurrence.every(Duration.ofSeconds(1)))
				.withMisfire(MisfirePolicy.EACH)
				.withOverlap(OverlapPolicy.ALLOW));
			AtomicBoolean stop = new AtomicBoolean();
			List<CompletableFuture<Void>> firers = instances.stream()
				.map((instance) -> CompletableFuture.runAsync(() -> {
					while (!stop.get()) {
						instance.fireDue();
						sleepQuietly(20);
					}
				}))
				.toList();
			await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
				.until(() -> jobsOf("tick").size() >= 12);
			stop.set(true);
			CompletableFuture.allOf(firers.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		}
		finally {
			pools.forEach(HikariDataSource::close);
		}
		List<Instant> ticks = jobsOf("tick").stream().map(JobRecord::scheduledFor).toList();
		assertThat(ticks).doesNotContainNull().doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(12);
		for (int i = 1; i < ticks.size(); i++) {
			assertThat(Duration.between(ticks.get(i - 1), ticks.get(i))).isEqualTo(Duration.ofSeconds(1));
		}
	}

	/** Down across ten ticks: one job for the latest (default), none, or one per tick. */
	@Test
	void missedTicksFollowTheMisfirePolicy() {
		handler("once", (payload, context) -> null);
		handler("skip", (payload, context) -> null);
		handler("each", (payload, context) -> null);
		Schedules schedules = schedules(this.database.dataSource());
		Recurrence everySecond = Recurrence.every(Duration.ofSeconds(1));
		schedules.create(ScheduleDefinition.of("once", "once", everySecond));
		schedules.create(ScheduleDefinition.of("skip", "skip", everySecond).withMisfire(MisfirePolicy.SKIP));
		schedules.create(ScheduleDefinition.of("each", "each", everySecond).withMisfire(MisfirePolicy.EACH));
		for (String name : List.of("once", "skip", "each")) {
			moveNextRunBack(name, Duration.ofMillis(9_500));
		}
		List<FiredTick> handled = schedules.fireDue();
		assertThat(jobsOf("once")).hasSize(1);
		assertThat(jobsOf("skip")).isEmpty();
		assertThat(jobsOf("each")).hasSize(10);
		ScheduleRecord once = schedules.find("once").orElseThrow();
		assertThat(jobsOf("once").get(0).scheduledFor()).isEqualTo(once.lastTickAt());
		assertThat(handled.stream().filter((tick) -> tick.schedule().equals("skip"))).allMatch(FiredTick::skipped);
		for (String name : List.of("once", "skip", "each")) {
			ScheduleRecord record = schedules.find(name).orElseThrow();
			assertThat(record.nextRunAt()).isAfter(record.lastTickAt());
			assertThat(schedules.fireDue()).noneMatch((tick) -> tick.schedule().equals(name));
		}
	}

	@Test
	void aTickWhileThePreviousJobIsUnfinishedIsSkippedUnlessOverlapIsAllowed() {
		handler("slow", (payload, context) -> null);
		handler("overlapping", (payload, context) -> null);
		Schedules schedules = schedules(this.database.dataSource());
		Recurrence hourly = Recurrence.every(Duration.ofHours(1));
		schedules.create(ScheduleDefinition.of("slow", "slow", hourly));
		schedules.create(ScheduleDefinition.of("overlapping", "overlapping", hourly).withOverlap(OverlapPolicy.ALLOW));
		for (int round = 0; round < 2; round++) {
			moveNextRunBack("slow", Duration.ofSeconds(1));
			moveNextRunBack("overlapping", Duration.ofSeconds(1));
			schedules.fireDue();
		}
		// No Manager runs: the first tick's job is still QUEUED at the second tick.
		assertThat(jobsOf("slow")).hasSize(1);
		assertThat(jobsOf("overlapping")).hasSize(2);
		assertThat(schedules.find("slow").orElseThrow().lastJobStatus()).isEqualTo(JobStatus.QUEUED);
	}

	@Test
	void schedulesAreOperatedAtRuntimeAndTheHandlerSeesItsTick() {
		List<Instant> seen = Collections.synchronizedList(new ArrayList<>());
		this.fixture.register(HandlerDefinition.of("report", "default", (payload, context) -> {
			seen.add(context.scheduledFor());
			return payload;
		}));
		this.fixture.startManager((s) -> s);
		Schedules schedules = schedules(this.database.dataSource());
		ScheduleRecord created = schedules.create(ScheduleDefinition.of("nightly", "report",
				Recurrence.cron("0 0 2 * * *", "Europe/Berlin")).withPayload("{\"kind\":\"sales\"}"));
		assertThat(created.source()).isEqualTo(ScheduleSource.API);
		assertThat(created.nextRunAt().atZone(java.time.ZoneId.of("Europe/Berlin")).getHour()).isEqualTo(2);
		assertThatThrownBy(() -> schedules.create(created.definition())).isInstanceOf(IllegalStateException.class);
		long id = schedules.trigger("nightly");
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(JSON.readValue(this.fixture.job(id).payload(), Map.class)).isEqualTo(Map.of("kind", "sales"));
		assertThat(seen).hasSize(1).doesNotContainNull();
		assertThat(schedules.find("nightly").orElseThrow().lastJobId()).isEqualTo(id);
		assertThat(schedules.pause("nightly")).isTrue();
		moveNextRunBack("nightly", Duration.ofSeconds(1));
		assertThat(schedules.fireDue()).isEmpty();
		assertThat(schedules.resume("nightly")).isTrue();
		assertThat(schedules.find("nightly").orElseThrow().nextRunAt())
			.isAfter(schedules.find("nightly").orElseThrow().lastFiredAt());
		ScheduleRecord updated = schedules.update(created.definition().withRecurrence(Recurrence.every(Duration.ofMinutes(15))));
		assertThat(updated.definition().recurrence().every()).isEqualTo(Duration.ofMinutes(15));
		moveNextRunBack("nightly", Duration.ofSeconds(1));
		List<FiredTick> fired = schedules.fireDue();
		assertThat(fired).hasSize(1);
		awaitStatus(fired.get(0).jobId(), JobStatus.SUCCEEDED);
		assertThat(this.fixture.job(fired.get(0).jobId()).scheduledFor()).isEqualTo(fired.get(0).tick());
		assertThat(schedules.delete("nightly")).isTrue();
		assertThat(schedules.find("nightly")).isEmpty();
	}

	@Test
	void schedulesThatLeaveTheCodeStopFiringAndShowAsOrphaned() {
		handler("kept", (payload, context) -> null);
		handler("dropped", (payload, context) -> null);
		Schedules schedules = schedules(this.database.dataSource());
		Recurrence hourly = Recurrence.every(Duration.ofHours(1));
		schedules.declare(ScheduleSource.PROPERTIES,
				List.of(ScheduleDefinition.of("kept", "kept", hourly), ScheduleDefinition.of("dropped", "dropped", hourly)));
		schedules.create(ScheduleDefinition.of("runtime", "kept", hourly));
		schedules.declare(ScheduleSource.PROPERTIES, List.of(ScheduleDefinition.of("kept", "kept", hourly)));
		assertThat(schedules.find("dropped").orElseThrow().orphaned()).isTrue();
		assertThat(schedules.find("kept").orElseThrow().orphaned()).isFalse();
		assertThat(schedules.find("runtime").orElseThrow().orphaned()).isFalse();
		moveNextRunBack("dropped", Duration.ofSeconds(1));
		assertThat(schedules.fireDue()).isEmpty();
		assertThatThrownBy(() -> schedules.declare(ScheduleSource.ANNOTATION,
				List.of(ScheduleDefinition.of("ghost", "no.such.handler", hourly))))
			.isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("ghost")
			.hasMessageContaining("no.such.handler");
	}

	// --- concurrency and shutdown

	@Test
	void twoInstancesDrainEveryJobExactlyOnce() {
		int total = concurrencyJobs();
		this.fixture.jdbc().execute("CREATE TABLE ran (job_id BIGINT PRIMARY KEY, worker VARCHAR(128) NOT NULL)");
		Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
		Set<String> instancesSeen = ConcurrentHashMap.newKeySet();
		handler("record", (payload, context) -> {
			runs.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger()).incrementAndGet();
			// Hold each instance's first jobs until both have taken one: a single writer (SQLite)
			// can otherwise let one instance win every claim, and the test would not be a race.
			if (instancesSeen.size() < 2) {
				instancesSeen.add(this.fixture.jdbc()
					.queryForObject("SELECT lease_owner FROM queue_job WHERE id = ?", String.class, context.jobId()));
				await().atMost(WAIT).until(() -> instancesSeen.size() == 2);
			}
			this.fixture.jdbc().update("INSERT INTO ran (job_id, worker) VALUES (?, ?)", context.jobId(),
					Thread.currentThread().getName());
			return null;
		});
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < total; i++) {
			jobs.add(Job.of("record", i));
		}
		try (HikariDataSource one = this.database.newDataSource(12);
				HikariDataSource two = this.database.newDataSource(12)) {
			Manager first = this.fixture.startInstance((s) -> s.workerId("instance-1").defaultConcurrency(8), one);
			Manager second = this.fixture.startInstance((s) -> s.workerId("instance-2").defaultConcurrency(8), two);
			for (int from = 0; from < total; from += 1000) {
				this.fixture.queue().enqueueAll(jobs.subList(from, Math.min(total, from + 1000)));
			}
			await().atMost(Duration.ofMinutes(3))
				.pollInterval(Duration.ofMillis(200))
				.until(() -> this.fixture.count("status = 'SUCCEEDED'") == total);
			first.stop();
			second.stop();
			assertThat(runs).hasSize(total);
			assertThat(runs.values()).allSatisfy((count) -> assertThat(count).hasValue(1));
			assertThat(this.fixture.jdbc().queryForObject("SELECT COUNT(*) FROM ran", Integer.class)).isEqualTo(total);
			assertThat(this.fixture.count("status <> 'SUCCEEDED' OR attempts <> 1")).isZero();
			assertThat(this.fixture.count("lease_owner = 'instance-1'")).isPositive();
			assertThat(this.fixture.count("lease_owner = 'instance-2'")).isPositive();
			assertThat(first.leaseLosses() + second.leaseLosses()).isZero();
		}
	}

	@Test
	void stopFinishesRunningJobsAndGivesBackUnstartedOnes() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		handler("slow", (payload, context) -> {
			started.countDown();
			Thread.sleep(300);
			return "done";
		});
		// One worker thread for a lane of four: three claimed jobs wait for the thread.
		Manager manager = this.fixture.startManager(this.fixture.store(),
				QueueFixture.fastSettings().defaultConcurrency(4).build(), 1);
		List<Long> ids = this.fixture.queue()
			.enqueueAll(List.of(Job.of("slow", 1), Job.of("slow", 2), Job.of("slow", 3), Job.of("slow", 4)));
		assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
		await().atMost(WAIT).until(() -> this.fixture.count("status = 'RUNNING'") == 4);
		manager.stop();
		assertThat(this.fixture.count("status = 'RUNNING'")).isZero();
		assertThat(this.fixture.status(ids.get(0))).isEqualTo(JobStatus.SUCCEEDED);
		for (long id : ids.subList(1, 4)) {
			JobRecord job = this.fixture.job(id);
			assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
			assertThat(job.attempts()).isZero();
			assertThat(job.leaseToken()).isNull();
		}
		assertThat(manager.isRunning()).isFalse();
		manager.stop();
	}

	@Test
	void completionsAreRecordedTogetherAndFlushedAtStop() {
		handler("work", (payload, context) -> payload);
		Manager manager = this.fixture.startManager(
				(s) -> s.completionLinger(Duration.ofSeconds(5)).completionBatchSize(3).defaultConcurrency(1));
		List<Long> ids = this.fixture.queue().enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2)));
		await().atMost(WAIT).until(() -> this.fixture.listener().events("started").size() == 2);
		assertThat(ids).allSatisfy((id) -> assertThat(this.fixture.status(id)).isEqualTo(JobStatus.RUNNING));
		long third = this.fixture.queue().enqueue("work", 3);
		awaitStatus(third, JobStatus.SUCCEEDED);
		assertThat(ids).allSatisfy((id) -> assertThat(this.fixture.status(id)).isEqualTo(JobStatus.SUCCEEDED));
		long fourth = this.fixture.queue().enqueue("work", 4);
		await().atMost(WAIT).until(() -> this.fixture.listener().events("started").size() == 4);
		assertThat(this.fixture.status(fourth)).isEqualTo(JobStatus.RUNNING);
		manager.stop();
		assertThat(this.fixture.status(fourth)).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(this.fixture.job(fourth).result()).isEqualTo("\"4\"");
	}

	@Test
	void stoppedManagerClaimsNothing() {
		handler("work", (payload, context) -> null);
		Manager manager = this.fixture.startManager((s) -> s);
		manager.stop();
		long id = this.fixture.queue().enqueue("work", null);
		manager.wakeUp(Set.of("default"));
		await().pollDelay(Duration.ofMillis(300)).atMost(WAIT).until(() -> true);
		assertThat(this.fixture.status(id)).isEqualTo(JobStatus.QUEUED);
	}

	// --- observing and retention

	@Test
	void listenerHearsEveryOutcome() {
		handler("ok", (payload, context) -> "fine");
		handler("bad", (payload, context) -> {
			throw new IllegalStateException("always");
		});
		this.fixture.startManager((s) -> s);
		long ok = this.fixture.queue().enqueue("ok", null);
		long bad = this.fixture.queue().enqueue("bad", null);
		long cancelled = this.fixture.queue().enqueue(Job.of("ok", null).delay(Duration.ofHours(1)));
		assertThat(this.fixture.queue().cancel(cancelled)).isTrue();
		awaitStatus(ok, JobStatus.SUCCEEDED);
		awaitStatus(bad, JobStatus.FAILED);
		RecordingJobListener heard = this.fixture.listener();
		// The listener hears of an outcome just after it is written.
		await().atMost(WAIT).until(() -> heard.events("finished").size() == 4);
		assertThat(heard.events("enqueued")).containsExactly("enqueued default ok 1", "enqueued default bad 1",
				"enqueued default ok 1");
		assertThat(heard.events("cancelled")).containsExactly("cancelled default ok");
		assertThat(heard.events("finished ok")).containsExactly("finished ok succeeded");
		assertThat(heard.events("finished bad")).containsExactly("finished bad retried", "finished bad retried",
				"finished bad failed");
		assertThat(heard.events("started")).hasSize(4);
		assertThat(heard.waits()).allSatisfy((wait) -> assertThat(wait).isGreaterThanOrEqualTo(Duration.ZERO));
	}

	@Test
	void listenerThatThrowsChangesNothingForTheJobs() {
		handler("ok", (payload, context) -> "fine");
		JobListener broken = new JobListener() {
			@Override
			public void claimed(String queue, int jobs) {
				throw new IllegalStateException("listener bug");
			}

			@Override
			public void started(JobRecord job, Duration waited) {
				throw new IllegalStateException("listener bug");
			}
		};
		Manager manager = new Manager(this.fixture.store(), this.fixture.handlers(), this.fixture.codec(),
				QueueFixture.fastSettings().build(), this.fixture.scheduler(), this.fixture.workerExecutor(4), broken);
		manager.start();
		try {
			long id = this.fixture.queue().enqueue("ok", null);
			awaitStatus(id, JobStatus.SUCCEEDED);
		}
		finally {
			manager.stop();
		}
		assertThat(this.fixture.count("status = 'RUNNING'")).isZero();
	}

	@Test
	void countsByQueueReadTheMixOfStatesInOneQuery() {
		this.fixture.queue().enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2), Job.of("work", 3),
				Job.of("work", 4).queue("mail"), Job.of("work", 5).queue("mail").delay(Duration.ofHours(1))));
		JobRecord running = claim("default", 1, "work").get(0);
		this.fixture.store().fail(new Lease(running.id(), running.leaseToken()), "broken");
		claim("default", 1, "work");
		await().pollDelay(Duration.ofMillis(20)).atMost(WAIT).until(() -> true);
		List<QueueCount> counts = this.fixture.store().countsByQueue();
		assertThat(counts).extracting((count) -> count.queue() + " " + count.status() + " " + count.jobs())
			.containsExactlyInAnyOrder("default FAILED 1", "default RUNNING 1", "default QUEUED 1", "mail QUEUED 2");
		QueueCount mail = counts.stream().filter((count) -> count.queue().equals("mail")).findFirst().orElseThrow();
		assertThat(mail.oldestDueAge()).isGreaterThan(Duration.ZERO).isLessThan(Duration.ofMinutes(5));
	}

	@Test
	void pruneDeletesOnlyFinishedJobsPastTheirRetention() {
		List<Long> ids = this.fixture.queue()
			.enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2), Job.of("work", 3), Job.of("work", 4)));
		List<JobRecord> claimed = claim("default", 3, "work");
		this.fixture.store()
			.complete(List.of(new Completion(new Lease(claimed.get(0).id(), claimed.get(0).leaseToken()), null)));
		this.fixture.store().fail(new Lease(claimed.get(1).id(), claimed.get(1).leaseToken()), "broken");
		this.fixture.queue().cancel(ids.get(3));
		await().pollDelay(Duration.ofMillis(50)).atMost(WAIT).until(() -> true);
		JobStore store = this.fixture.store();
		assertThat(store.pruneFinished(JobStatus.SUCCEEDED, Duration.ofHours(1), 100)).isZero();
		assertThat(store.pruneFinished(JobStatus.SUCCEEDED, Duration.ofMillis(10), 100)).isEqualTo(1);
		assertThat(store.pruneFinished(JobStatus.FAILED, Duration.ofMillis(10), 100)).isEqualTo(1);
		io.sqlqueue.internal.maintenance.Pruner pruner = new io.sqlqueue.internal.maintenance.Pruner(store, this.fixture.scheduler(),
				Duration.ofHours(1), Duration.ofDays(7), Duration.ofMillis(10), Duration.ZERO);
		assertThat(pruner.runOnce()).containsEntry(JobStatus.CANCELLED, 1).doesNotContainKey(JobStatus.FAILED);
		assertThat(this.fixture.count("1 = 1")).isEqualTo(1);
		assertThat(this.fixture.status(claimed.get(2).id())).isEqualTo(JobStatus.RUNNING);
		assertThatThrownBy(() -> store.pruneFinished(JobStatus.QUEUED, Duration.ZERO, 10))
			.isInstanceOf(IllegalArgumentException.class);
	}

	@Test
	void operatorRetriesAllFailedJobsOfAQueueOrAHandlerOldestFirst() {
		List<Long> ids = this.fixture.queue()
			.enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2), Job.of("other", 3), Job.of("work", 4).queue("mail"),
					Job.of("work", 5).uniqueKey("k")));
		List<JobRecord> claimed = new ArrayList<>(claim("default", 10, "work", "other"));
		claimed.addAll(claim("mail", 10, "work"));
		assertThat(claimed).hasSize(5);
		claimed.forEach((job) -> this.fixture.store().fail(new Lease(job.id(), job.leaseToken()), "broken"));
		long holder = this.fixture.queue().enqueue(Job.of("work", 6).uniqueKey("k"));
		JobStore store = this.fixture.store();
		assertThat(store.retryAllFailed(null, "other", 10)).containsExactly(ids.get(2));
		assertThat(store.retryAllFailed("default", "work", 1)).containsExactly(ids.get(0));
		assertThat(store.retryAllFailed("default", null, 10)).containsExactly(ids.get(1));
		assertThat(store.retryAllFailed("nowhere", null, 10)).isEmpty();
		assertThat(store.retryAllFailed(null, null, 10)).containsExactly(ids.get(3));
		assertThat(this.fixture.status(ids.get(4))).isEqualTo(JobStatus.FAILED);
		assertThat(this.fixture.status(holder)).isEqualTo(JobStatus.QUEUED);
		assertThat(this.fixture.job(ids.get(0))).satisfies((job) -> {
			assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
			assertThat(job.attempts()).isZero();
			assertThat(job.finishedAt()).isNull();
		});
		assertThat(store.retryAllFailed(null, null, 10)).isEmpty();
	}

	// --- browsing (the dashboard's reads)

	private JobBrowser browser() {
		assumeTrue(claimMethod() == database().dialect().claimMethod(),
				"Browsing does not depend on the claim method; run with the database's own");
		return new JobBrowser(this.database.dataSource(), this.database.dialect(), this.database.schema());
	}

	@Test
	void browserPagesJobsNewestFirstByKeysetAndFilters() {
		JobBrowser browser = browser();
		List<Long> ids = this.fixture.queue()
			.enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2).uniqueKey("order-7"), Job.of("other", 3),
					Job.of("work", 4).queue("mail").groupKey("customer-1"), Job.of("work", 5), Job.of("work", 6),
					Job.of("other", 7).queue("mail").groupKey("customer-1"), Job.of("work", 8)));
		JobRecord failed = claim("default", 1, "work").get(0);
		this.fixture.store().fail(new Lease(failed.id(), failed.leaseToken()), "java.lang.IllegalStateException: <b>boom</b>\n\tat x");
		this.fixture.queue().cancel(ids.get(7));

		JobPage newest = browser.olderThan(JobFilter.ALL, null, 3);
		assertThat(newest.jobs()).extracting(JobSummary::id).containsExactly(ids.get(7), ids.get(6), ids.get(5));
		assertThat(newest.newer()).isNull();
		JobPage second = browser.olderThan(JobFilter.ALL, newest.older(), 3);
		assertThat(second.jobs()).extracting(JobSummary::id).containsExactly(ids.get(4), ids.get(3), ids.get(2));
		JobPage last = browser.olderThan(JobFilter.ALL, second.older(), 3);
		assertThat(last.jobs()).extracting(JobSummary::id).containsExactly(ids.get(1), ids.get(0));
		assertThat(last.older()).isNull();
		assertThat(browser.newerThan(JobFilter.ALL, last.newer(), 3).jobs()).isEqualTo(second.jobs());
		JobPage backToNewest = browser.newerThan(JobFilter.ALL, second.newer(), 3);
		assertThat(backToNewest.jobs()).isEqualTo(newest.jobs());
		assertThat(backToNewest.newer()).isNull();
		assertThat(backToNewest.older()).isEqualTo(ids.get(5));

		assertThat(browser.olderThan(new JobFilter("mail", null, null, null), null, 10).jobs())
			.extracting(JobSummary::id).containsExactly(ids.get(6), ids.get(3));
		assertThat(browser.olderThan(new JobFilter(null, "other", null, null), null, 10).jobs())
			.extracting(JobSummary::id).containsExactly(ids.get(6), ids.get(2));
		assertThat(browser.olderThan(new JobFilter("default", "work", JobStatus.QUEUED, null), null, 10).jobs())
			.extracting(JobSummary::id).containsExactly(ids.get(5), ids.get(4), ids.get(1));
		assertThat(browser.olderThan(new JobFilter(null, null, JobStatus.CANCELLED, null), null, 10).jobs())
			.extracting(JobSummary::id).containsExactly(ids.get(7));
		assertThat(browser.olderThan(new JobFilter(null, null, null, "order-7"), null, 10).jobs())
			.extracting(JobSummary::id).containsExactly(ids.get(1));
		assertThat(browser.olderThan(new JobFilter("mail", null, null, "customer-1"), ids.get(6), 10).jobs())
			.extracting(JobSummary::id).containsExactly(ids.get(3));
		assertThat(browser.olderThan(new JobFilter(null, null, null, String.valueOf(ids.get(2))), null, 10).jobs())
			.extracting(JobSummary::id).containsExactly(ids.get(2));
		assertThat(browser.olderThan(new JobFilter(null, null, null, "'; DROP TABLE queue_job; --"), null, 10).jobs())
			.isEmpty();

		JobSummary failedLine = browser.olderThan(new JobFilter(null, null, JobStatus.FAILED, null), null, 10)
			.jobs().get(0);
		assertThat(failedLine.id()).isEqualTo(failed.id());
		assertThat(failedLine.errorHead()).startsWith("java.lang.IllegalStateException: <b>boom</b>");
		assertThat(failedLine.attempts()).isEqualTo(1);
		assertThat(failedLine.finishedAt()).isNotNull();
		assertThatThrownBy(() -> browser.olderThan(JobFilter.ALL, null, 0)).isInstanceOf(IllegalArgumentException.class);
	}

	@Test
	void browserCountsFinishedJobsPerMinuteOnTheDatabaseClock() {
		JobBrowser browser = browser();
		List<Long> ids = this.fixture.queue()
			.enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2), Job.of("work", 3), Job.of("work", 4).queue("mail"),
					Job.of("work", 5)));
		List<JobRecord> claimed = claim("default", 3, "work");
		this.fixture.store()
			.complete(claimed.subList(0, 2)
				.stream()
				.map((job) -> new Completion(new Lease(job.id(), job.leaseToken()), null))
				.toList());
		this.fixture.store().fail(new Lease(claimed.get(2).id(), claimed.get(2).leaseToken()), "broken");
		this.fixture.queue().cancel(ids.get(3));
		String finishedAgo = "UPDATE " + this.fixture.table() + " SET finished_at = "
				+ this.database.dialect().nowPlusMillis() + " WHERE id = ?";
		this.fixture.jdbc().update(finishedAgo, -(4 * 60_000L + 30_000L), claimed.get(1).id());
		this.fixture.jdbc().update(finishedAgo, -(20 * 60_000L), claimed.get(0).id());
		assertThat(browser.finishedPerMinute(15))
			.extracting((count) -> count.queue() + " " + count.status() + " " + count.minutesAgo() + " " + count.jobs())
			.containsExactlyInAnyOrder("default SUCCEEDED 4 1", "default FAILED 0 1", "mail CANCELLED 0 1");
	}

	@Test
	void browserPagesTheMembersOfABatch() {
		JobBrowser browser = browser();
		this.fixture.queue().enqueue(Job.of("work", 0));
		BatchIds batch = this.fixture.queue()
			.enqueue(Batch.of(List.of(Job.of("work", 1), Job.of("other", 2), Job.of("work", 3)))
				.callback(Job.of("done", null)));
		this.fixture.queue().enqueue(Job.of("work", 4));
		List<Long> members = batch.jobIds().subList(0, 3);
		JobRecord failed = claim("default", 10, "other").get(0);
		this.fixture.store().fail(new Lease(failed.id(), failed.leaseToken()), "broken");

		JobPage first = browser.olderThan(JobFilter.ALL.inBatch(batch.batchId()), null, 2);
		assertThat(first.jobs()).extracting(JobSummary::id).containsExactly(members.get(2), members.get(1));
		JobPage rest = browser.olderThan(JobFilter.ALL.inBatch(batch.batchId()), first.older(), 2);
		assertThat(rest.jobs()).extracting(JobSummary::id).containsExactly(members.get(0));
		assertThat(rest.older()).isNull();
		assertThat(browser.olderThan(new JobFilter(null, null, JobStatus.FAILED, null).inBatch(batch.batchId()), null, 10)
			.jobs()).extracting(JobSummary::id).containsExactly(failed.id());
		assertThat(browser.olderThan(JobFilter.ALL.inBatch(batch.batchId() + 1000), null, 10).jobs()).isEmpty();
	}

	@Test
	void browserSplitsQueuedJobsIntoDueDelayedAndBackingOffOnTheDatabaseClock() {
		JobBrowser browser = browser();
		this.fixture.queue()
			.enqueueAll(List.of(Job.of("work", 1), Job.of("work", 2), Job.of("work", 3).delay(Duration.ofHours(1)),
					Job.of("work", 4).queue("mail"), Job.of("work", 5).queue("mail")));
		JobRecord retried = claim("mail", 1, "work").get(0);
		this.fixture.store().reschedule(new Lease(retried.id(), retried.leaseToken()), "flaky", Duration.ofHours(1));
		JobRecord running = claim("default", 1, "work").get(0);
		assertThat(running.status()).isEqualTo(JobStatus.RUNNING);
		// A row made due a second ago by the database's clock, not this JVM's, counts as due.
		long delayedId = this.fixture.queue().enqueue(Job.of("work", 6).delay(Duration.ofHours(1)));
		this.fixture.jdbc()
			.update("UPDATE " + this.fixture.table() + " SET run_at = " + this.database.dialect().nowPlusMillis()
					+ " WHERE id = ?", -1_000L, delayedId);

		assertThat(browser.queuedByQueue())
			.extracting((count) -> count.queue() + " " + count.due() + " " + count.delayed() + " " + count.backingOff())
			.containsExactlyInAnyOrder("default 2 1 0", "mail 1 0 1");
	}

	// --- headers, observations (traces), and jobs run on the caller's thread (the test kit)

	@Test
	void headersAreStoredWithTheJobAndComeBackWithItsClaim() {
		JobStore store = this.fixture.store();
		long traced = store.insert(List.of(new NewJob("default", "work", "{}", 0, null, 0, 3, null, null)
			.withHeaders("{\"traceparent\":\"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\"}")))
			.get(0);
		long plain = this.fixture.queue().enqueue("work", Map.of());
		Map<String, String> expected = Map.of("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
		assertThat(headers(this.fixture.job(traced))).isEqualTo(expected);
		assertThat(this.fixture.job(plain).headers()).as("an enqueue without observations stores none").isNull();
		Map<Long, JobRecord> claimed = new java.util.HashMap<>();
		claim("default", 10, "work").forEach((job) -> claimed.put(job.id(), job));
		assertThat(claimed).containsOnlyKeys(traced, plain);
		assertThat(headers(claimed.get(traced))).isEqualTo(expected);
		assertThat(claimed.get(plain).headers()).isNull();
	}

	/** A batch keeps every job's headers and concurrency key (PostgreSQL's one-statement insert once dropped the headers). */
	@Test
	void aBatchKeepsEveryJobsHeadersAndConcurrencyKey() {
		String traceparent = "{\"traceparent\":\"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\"}";
		List<Long> ids = this.fixture.store()
			.insert(List.of(new NewJob("default", "work", "{}", 0, null, 0, 3, null, null).withHeaders(traceparent),
					new NewJob("default", "work", "{}", 0, null, 0, 3, null, null).withHeaders(traceparent)
						.withConcurrencyKey("customer:1"),
					new NewJob("default", "work", "{}", 0, null, 0, 3, null, null)));
		assertThat(headers(this.fixture.job(ids.get(0)))).containsOnlyKeys("traceparent");
		assertThat(headers(this.fixture.job(ids.get(1)))).containsOnlyKeys("traceparent");
		assertThat(this.fixture.job(ids.get(1)).concurrencyKey()).isEqualTo("customer:1");
		assertThat(this.fixture.job(ids.get(2)).headers()).isNull();
		assertThat(this.fixture.job(ids.get(2)).concurrencyKey()).isNull();
	}

	@Test
	void observationsThatPropagateNothingStoreNoHeaders() {
		io.micrometer.observation.ObservationRegistry registry = io.micrometer.observation.ObservationRegistry.create();
		registry.observationConfig().observationHandler((context) -> true);
		try (JobAwaiter awaiter = new JobAwaiter(this.fixture.store(), this.fixture.codec())) {
			JobQueue queue = new DefaultJobQueue(this.fixture.store(), this.fixture.codec(), this.fixture.handlers(),
					QueueFixture.FAST_RETRIES, JobListener.NONE, awaiter, new MicrometerJobObservations(registry));
			long id = queue.enqueue("work", Map.of());
			assertThat(this.fixture.job(id).headers()).isNull();
		}
	}

	@Test
	void attemptsRunAsChildrenOfTheTraceTheirEnqueueWasIn() {
		SimpleTracer tracer = new SimpleTracer();
		TestPropagator propagator = new TestPropagator(tracer);
		io.micrometer.observation.ObservationRegistry registry = io.micrometer.observation.ObservationRegistry.create();
		registry.observationConfig()
			.observationHandler(new io.micrometer.observation.ObservationHandler.FirstMatchingCompositeObservationHandler(
					new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
					new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
					new DefaultTracingObservationHandler(tracer)));
		MicrometerJobObservations observations = new MicrometerJobObservations(registry);
		List<String> seenByHandler = Collections.synchronizedList(new ArrayList<>());
		handler("traced", (payload, context) -> {
			seenByHandler.add(tracer.currentSpan().context().traceId());
			if (context.attempt() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
			return "done";
		});
		Manager manager = new Manager(this.fixture.store(), this.fixture.handlers(), this.fixture.codec(),
				QueueFixture.fastSettings().build(), this.fixture.scheduler(), this.fixture.workerExecutor(2),
				JobListener.NONE, observations);
		long id;
		io.micrometer.observation.Observation requestObservation = io.micrometer.observation.Observation
			.start("request", registry);
		try (JobAwaiter awaiter = new JobAwaiter(this.fixture.store(), this.fixture.codec());
				io.micrometer.observation.Observation.Scope scope = requestObservation.openScope()) {
			JobQueue queue = new DefaultJobQueue(this.fixture.store(), this.fixture.codec(), this.fixture.handlers(),
					QueueFixture.FAST_RETRIES, JobListener.NONE, awaiter, observations);
			id = queue.enqueue("traced", Map.of("n", 1));
		}
		finally {
			requestObservation.stop();
		}
		assertThat(headers(this.fixture.job(id))).containsOnlyKeys("traceparent");
		manager.start();
		try {
			awaitStatus(id, JobStatus.SUCCEEDED);
		}
		finally {
			manager.stop();
		}
		List<SimpleSpan> spans = new ArrayList<>(tracer.getSpans());
		SimpleSpan request = spans.stream().filter((span) -> span.getName().equals("request")).findFirst().orElseThrow();
		SimpleSpan enqueue = spans.stream().filter((span) -> span.getName().equals("traced enqueue")).findFirst().orElseThrow();
		assertThat(enqueue.context().traceId()).isEqualTo(request.context().traceId());
		assertThat(enqueue.context().parentId()).isEqualTo(request.context().spanId());
		assertThat(enqueue.getKind()).isEqualTo(io.micrometer.tracing.Span.Kind.PRODUCER);
		assertThat(enqueue.getTags()).containsEntry("queue", "default").containsEntry("handler", "traced")
			.containsEntry("sqlqueue.job.id", String.valueOf(id));
		List<SimpleSpan> attempts = spans.stream().filter((span) -> span.getName().equals("traced process")).toList();
		assertThat(attempts).as("one span per attempt").hasSize(2).allSatisfy((span) -> {
			assertThat(span.context().traceId()).isEqualTo(request.context().traceId());
			assertThat(span.context().parentId()).isEqualTo(enqueue.context().spanId());
			assertThat(span.getKind()).isEqualTo(io.micrometer.tracing.Span.Kind.CONSUMER);
			assertThat(span.getTags()).containsEntry("queue", "default").containsEntry("handler", "traced");
		});
		assertThat(attempts).extracting((span) -> span.getTags().get("outcome")).containsExactlyInAnyOrder("retried",
				"succeeded");
		assertThat(attempts).extracting((span) -> span.getTags().get("sqlqueue.job.attempt"))
			.containsExactlyInAnyOrder("1", "2");
		assertThat(seenByHandler).as("the attempt's span is current while the handler runs")
			.containsExactly(request.context().traceId(), request.context().traceId());
	}

	@Test
	void runnerRunsJobsOnTheCallersThreadThroughTheFencedWrites() {
		String caller = Thread.currentThread().getName();
		AtomicInteger flakyCalls = new AtomicInteger();
		handler("ok", (payload, context) -> Thread.currentThread().getName());
		this.fixture.register(new HandlerDefinition("flaky", "default", 2, null, Set.of(), (payload, context) -> {
			if (flakyCalls.incrementAndGet() < 3) {
				throw new IllegalStateException("flaky " + flakyCalls.get());
			}
			return "recovered";
		}, "flaky"));
		long ok = this.fixture.queue().enqueue("ok", 1);
		long flaky = this.fixture.queue().enqueue("flaky", 2);
		long delayed = this.fixture.queue().enqueue(Job.of("ok", 3).delay(Duration.ofHours(1)));
		JobRunner runner = new JobRunner(this.fixture.store(), this.fixture.handlers(), this.fixture.codec(),
				QueueFixture.fastSettings().retryPolicy(new RetryPolicy(2, Duration.ofHours(1), 2.0, Duration.ofHours(2), 0))
					.build(),
				this.fixture.listener(), JobObservations.NONE);

		List<JobRunner.Ran> first = runner.runDue("default", 10);
		assertThat(first).extracting((ran) -> ran.job().id(), JobRunner.Ran::outcome)
			.containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(ok, JobOutcome.SUCCEEDED),
					org.assertj.core.groups.Tuple.tuple(flaky, JobOutcome.RETRIED));
		assertThat(this.fixture.job(ok).result()).isEqualTo(JSON.writeValueAsString(caller));
		JobRecord retried = this.fixture.job(flaky);
		assertThat(retried.status()).isEqualTo(JobStatus.QUEUED);
		assertThat(retried.runAt()).isAfter(retried.updatedAt().plusSeconds(1800));
		assertThat(runner.runDue("default", 10)).as("nothing due").isEmpty();

		assertThat(this.fixture.store().makeDue(List.of("ok", "flaky"))).isEqualTo(2);
		assertThat(runner.runDue("default", 10)).extracting((ran) -> ran.job().id(), JobRunner.Ran::outcome)
			.containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(delayed, JobOutcome.SUCCEEDED),
					org.assertj.core.groups.Tuple.tuple(flaky, JobOutcome.FAILED));
		assertThat(this.fixture.job(flaky).lastError()).contains("flaky 2");

		long later = this.fixture.queue().enqueue(Job.of("ok", 4).delay(Duration.ofHours(1)));
		assertThat(runner.run(later)).hasValueSatisfying((ran) -> {
			assertThat(ran.outcome()).isEqualTo(JobOutcome.SUCCEEDED);
			assertThat(ran.job().attempts()).isEqualTo(1);
		});
		assertThat(runner.run(later)).as("finished: not run again").isEmpty();
		assertThat(this.fixture.store().findByHandler("ok", JobStatus.SUCCEEDED, 10)).extracting(JobRecord::id)
			.containsExactly(ok, delayed, later);
		assertThat(this.fixture.listener().events()).contains("finished ok succeeded", "finished flaky retried",
				"finished flaky failed");
	}

	private static Map<String, String> headers(JobRecord job) {
		assertThat(job.headers()).isNotNull();
		return JSON.readValue(job.headers(), new tools.jackson.core.type.TypeReference<Map<String, String>>() {
		});
	}

	public record Greeting(String name, int times) {
	}

	static final class Greeter {

		final AtomicInteger calls = new AtomicInteger();

		String greet(Greeting greeting, JobContext context) {
			this.calls.incrementAndGet();
			return "Hello " + greeting.name() + " x" + greeting.times() + " (job " + context.jobId() + ")";
		}

	}

}
