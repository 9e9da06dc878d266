package io.sqlqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;

import io.sqlqueue.await.JobAwaiter;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.manager.JobRunner;
import io.sqlqueue.observation.JobObservations;
import io.sqlqueue.observation.MicrometerJobObservations;
import io.sqlqueue.store.NewJob;
import io.sqlqueue.test.TestPropagator;
import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.handler.PayloadCodec;
import io.sqlqueue.manager.Manager;
import io.sqlqueue.store.ClaimMethod;
import io.sqlqueue.store.Completion;
import io.sqlqueue.store.JobBrowser;
import io.sqlqueue.store.JobFilter;
import io.sqlqueue.store.JobPage;
import io.sqlqueue.store.JobStore;
import io.sqlqueue.store.JobSummary;
import io.sqlqueue.store.Lease;
import io.sqlqueue.store.QueueCount;
import io.sqlqueue.workflow.Batch;
import io.sqlqueue.workflow.BatchIds;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.RecordingJobListener;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The behaviour every database and claim method must show, with real connections and real
 * threads. A subclass names the database; it adds tests only for what is its own.
 */
public abstract class QueueConformanceTests
		implements EnqueueConformance, ClaimConformance, RetryConformance, TransactionalHandlerConformance,
		BadInputConformance, AwaitConformance, CancelConformance, LeaseConformance,
		CompletionConformance, GroupConformance, ShutdownConformance, FlowControlConformance,
		WorkflowConformance, ScheduleConformance, ManagerLoopsConformance, CallerLockConformance,
		CompletionFlushConformance, UnknownHandlerConformance {

	protected static final Duration WAIT = Duration.ofSeconds(30);

	protected TestDatabase.Isolated database;

	protected QueueFixture fixture;

	protected abstract TestDatabase database();

	protected ClaimMethod claimMethod() {
		return database().dialect().claimMethod();
	}

	/** Jobs the concurrency test drains. */
	@Override
	public int concurrencyJobs() {
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
		io.sqlqueue.manager.Pruner pruner = new io.sqlqueue.manager.Pruner(store, this.fixture.scheduler(),
				Duration.ofHours(1), Duration.ofDays(7), Duration.ofMillis(10), Duration.ZERO);
		assertThat(pruner.runOnce()).containsEntry(JobStatus.CANCELLED, 1).doesNotContainKey(JobStatus.FAILED);
		assertThat(this.fixture.count("1 = 1")).isEqualTo(1);
		assertThat(this.fixture.status(claimed.get(2).id())).isEqualTo(JobStatus.RUNNING);
		assertThatThrownBy(() -> store.pruneFinished(JobStatus.QUEUED, Duration.ZERO, 10))
			.isInstanceOf(IllegalArgumentException.class);
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
			JobQueue queue = new JobQueue(this.fixture.store(), this.fixture.codec(), this.fixture.handlers(),
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
			JobQueue queue = new JobQueue(this.fixture.store(), this.fixture.codec(), this.fixture.handlers(),
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

}
