package io.sqlqueue.sample;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import io.sqlqueue.JobQueue;
import io.sqlqueue.testkit.RanJob;
import io.sqlqueue.testkit.SqlQueueTester;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Traces from request to job, with Micrometer Tracing on Brave as Spring Boot configures it
 * (W3C {@code traceparent}): the sign-up request's server span is the parent of the enqueue's
 * producer span, which is stored with the job and becomes the parent of the job's own
 * span — one trace from the HTTP request to the mail the job sent.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
		"spring.datasource.url=jdbc:h2:mem:tracing-test;DB_CLOSE_DELAY=-1",
		"management.tracing.sampling.probability=1.0" })
@AutoConfigureRestTestClient
@Import(TracingTests.SpanRecorder.class)
class TracingTests {

	@Autowired
	private RestTestClient http;

	@Autowired
	private SqlQueueTester jobs;

	@Autowired
	private JobQueue queue;

	@Autowired
	private SpanRecorder spans;

	@Test
	void theJobsSpanJoinsTheTraceOfTheRequestThatEnqueuedIt() {
		Signup signup = this.http.post()
			.uri("/signups")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("email", "ada@example.com", "name", "Ada"))
			.exchange()
			.expectStatus()
			.isCreated()
			.expectBody(Signup.class)
			.returnResult()
			.getResponseBody();

		RanJob ran = this.jobs.run(signup.welcomeJobId());
		assertThat(ran.succeeded()).isTrue();

		MutableSpan request = this.spans.awaitOne((span) -> span.kind() == brave.Span.Kind.SERVER
				&& "/signups".equals(span.tag("uri")));
		MutableSpan enqueue = this.spans.awaitOne((span) -> "mail.welcome enqueue".equals(span.name()));
		MutableSpan job = this.spans.awaitOne((span) -> "mail.welcome process".equals(span.name()));

		assertThat(enqueue.kind()).isEqualTo(brave.Span.Kind.PRODUCER);
		assertThat(enqueue.traceId()).isEqualTo(request.traceId());
		assertThat(enqueue.parentId()).as("the enqueue is a span of the request").isEqualTo(request.id());
		assertThat(enqueue.tag("sqlqueue.job.id")).isEqualTo(String.valueOf(signup.welcomeJobId()));

		assertThat(job.kind()).isEqualTo(brave.Span.Kind.CONSUMER);
		assertThat(job.traceId()).as("the job's span is in the request's trace").isEqualTo(request.traceId());
		assertThat(job.parentId()).as("its parent is the request's enqueue span").isEqualTo(enqueue.id());
		assertThat(job.tags()).containsEntry("queue", "mail")
			.containsEntry("handler", "mail.welcome")
			.containsEntry("outcome", "succeeded")
			.containsEntry("sqlqueue.job.attempt", "1");

		assertThat(this.queue.find(signup.welcomeJobId()).orElseThrow().headers())
			.as("the W3C traceparent stored with the job")
			.isEqualTo("{\"traceparent\":\"00-" + request.traceId() + "-" + enqueue.id() + "-01\"}");
	}

	record Signup(long userId, long welcomeJobId, long followupJobId) {
	}

	/** Every span Brave finishes in this application. */
	@TestConfiguration(proxyBeanMethods = false)
	static class SpanRecorder {

		private final List<MutableSpan> finished = new CopyOnWriteArrayList<>();

		@Bean
		SpanHandler recordingSpanHandler() {
			return new SpanHandler() {
				@Override
				public boolean end(TraceContext context, MutableSpan span, Cause cause) {
					if (cause == Cause.FINISHED) {
						SpanRecorder.this.finished.add(span);
					}
					return true;
				}
			};
		}

		MutableSpan awaitOne(Predicate<MutableSpan> which) {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.finished.stream().filter(which).count() == 1);
			return this.finished.stream().filter(which).findFirst().orElseThrow();
		}

	}

}
