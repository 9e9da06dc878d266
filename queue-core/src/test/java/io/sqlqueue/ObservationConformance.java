package io.sqlqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;

import io.sqlqueue.internal.DefaultJobQueue;
import io.sqlqueue.internal.await.JobAwaiter;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.NewJob;
import io.sqlqueue.observation.MicrometerJobObservations;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.RecordingJobListener;
import io.sqlqueue.test.TestPropagator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the queue tells others, on every database: its listener hears every outcome, and an
 * enqueue's trace goes with the job as headers to each of its attempts.
 * {@link QueueConformanceTests} implements this.
 */
interface ObservationConformance extends ConformanceSupport {

	// --- listeners

	@Test
	default void listenerHearsEveryOutcome() {
		handler("ok", (payload, context) -> "fine");
		handler("bad", (payload, context) -> {
			throw new IllegalStateException("always");
		});
		fixture().startManager((s) -> s);
		long ok = fixture().queue().enqueue("ok", null);
		long bad = fixture().queue().enqueue("bad", null);
		long cancelled = fixture().queue().enqueue(Job.of("ok", null).delay(Duration.ofHours(1)));
		assertThat(fixture().queue().cancel(cancelled)).isTrue();
		awaitStatus(ok, JobStatus.SUCCEEDED);
		awaitStatus(bad, JobStatus.FAILED);
		RecordingJobListener heard = fixture().listener();
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
	default void listenerThatThrowsChangesNothingForTheJobs() {
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
		Manager manager = new Manager(fixture().store(), fixture().handlers(), fixture().codec(),
				QueueFixture.fastSettings().build(), fixture().scheduler(), fixture().workerExecutor(4), broken);
		manager.start();
		try {
			long id = fixture().queue().enqueue("ok", null);
			awaitStatus(id, JobStatus.SUCCEEDED);
		}
		finally {
			manager.stop();
		}
		assertThat(fixture().count("status = 'RUNNING'")).isZero();
	}

	// --- headers and observations (traces)

	@Test
	default void headersAreStoredWithTheJobAndComeBackWithItsClaim() {
		JobStore store = fixture().store();
		long traced = store.insert(List.of(new NewJob("default", "work", "{}", 0, null, 0, 3, null, null)
			.withHeaders("{\"traceparent\":\"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\"}")))
			.get(0);
		long plain = fixture().queue().enqueue("work", Map.of());
		Map<String, String> expected = Map.of("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
		assertThat(headers(fixture().job(traced))).isEqualTo(expected);
		assertThat(fixture().job(plain).headers()).as("an enqueue without observations stores none").isNull();
		Map<Long, JobRecord> claimed = new java.util.HashMap<>();
		claim("default", 10, "work").forEach((job) -> claimed.put(job.id(), job));
		assertThat(claimed).containsOnlyKeys(traced, plain);
		assertThat(headers(claimed.get(traced))).isEqualTo(expected);
		assertThat(claimed.get(plain).headers()).isNull();
	}

	/** A batch keeps every job's headers and concurrency key (PostgreSQL's one-statement insert once dropped the headers). */
	@Test
	default void aBatchKeepsEveryJobsHeadersAndConcurrencyKey() {
		String traceparent = "{\"traceparent\":\"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\"}";
		List<Long> ids = fixture().store()
			.insert(List.of(new NewJob("default", "work", "{}", 0, null, 0, 3, null, null).withHeaders(traceparent),
					new NewJob("default", "work", "{}", 0, null, 0, 3, null, null).withHeaders(traceparent)
						.withConcurrencyKey("customer:1"),
					new NewJob("default", "work", "{}", 0, null, 0, 3, null, null)));
		assertThat(headers(fixture().job(ids.get(0)))).containsOnlyKeys("traceparent");
		assertThat(headers(fixture().job(ids.get(1)))).containsOnlyKeys("traceparent");
		assertThat(fixture().job(ids.get(1)).concurrencyKey()).isEqualTo("customer:1");
		assertThat(fixture().job(ids.get(2)).headers()).isNull();
		assertThat(fixture().job(ids.get(2)).concurrencyKey()).isNull();
	}

	@Test
	default void observationsThatPropagateNothingStoreNoHeaders() {
		io.micrometer.observation.ObservationRegistry registry = io.micrometer.observation.ObservationRegistry.create();
		registry.observationConfig().observationHandler((context) -> true);
		try (JobAwaiter awaiter = new JobAwaiter(fixture().store(), fixture().codec())) {
			JobQueue queue = new DefaultJobQueue(fixture().store(), fixture().codec(), fixture().handlers(),
					QueueFixture.FAST_RETRIES, JobListener.NONE, awaiter, new MicrometerJobObservations(registry));
			long id = queue.enqueue("work", Map.of());
			assertThat(fixture().job(id).headers()).isNull();
		}
	}

	@Test
	default void attemptsRunAsChildrenOfTheTraceTheirEnqueueWasIn() {
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
		Manager manager = new Manager(fixture().store(), fixture().handlers(), fixture().codec(),
				QueueFixture.fastSettings().build(), fixture().scheduler(), fixture().workerExecutor(2),
				JobListener.NONE, observations);
		long id;
		io.micrometer.observation.Observation requestObservation = io.micrometer.observation.Observation
			.start("request", registry);
		try (JobAwaiter awaiter = new JobAwaiter(fixture().store(), fixture().codec());
				io.micrometer.observation.Observation.Scope scope = requestObservation.openScope()) {
			JobQueue queue = new DefaultJobQueue(fixture().store(), fixture().codec(), fixture().handlers(),
					QueueFixture.FAST_RETRIES, JobListener.NONE, awaiter, observations);
			id = queue.enqueue("traced", Map.of("n", 1));
		}
		finally {
			requestObservation.stop();
		}
		assertThat(headers(fixture().job(id))).containsOnlyKeys("traceparent");
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

	private static Map<String, String> headers(JobRecord job) {
		assertThat(job.headers()).isNotNull();
		return JSON.readValue(job.headers(), new tools.jackson.core.type.TypeReference<Map<String, String>>() {
		});
	}

}
