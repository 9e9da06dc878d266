package io.sqlqueue.sample;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What an operator sees and does over real HTTP, after real jobs ran: the {@code sqlqueue}
 * endpoint (counts, one job, retry, cancel, retry of all failed), {@code /actuator/health}
 * with the queue's indicator, and the queue's meters in {@code /actuator/prometheus}. The
 * Manager runs the jobs in the background here, as in production
 * ({@code sqlqueue.test.run-in-background}: the test kit is on the class path).
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
		"spring.datasource.url=jdbc:h2:mem:observe-test;DB_CLOSE_DELAY=-1",
		"sqlqueue.manager.poll-interval=50ms",
		"sqlqueue.retry.initial-backoff=50ms",
		"sqlqueue.retry.max-backoff=200ms",
		"sqlqueue.maintenance.stats-interval=100ms",
		"sample.followup-delay=1h",
		"sqlqueue.test.run-in-background=true" })
@AutoConfigureRestTestClient
class ObserveAndOperateTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	@Autowired
	private RestTestClient http;

	@Test
	void operatorWatchesRetriesAndCancelsJobsThroughActuator() {
		Map<?, ?> signup = post("/signups", Map.of("email", "ada@example.com", "name", "Ada"), 201);
		long welcome = ((Number) signup.get("welcomeJobId")).longValue();
		long followup = ((Number) signup.get("followupJobId")).longValue();
		long flaky = requestReport("mails", 5);
		long unknownKind = requestReport("weather", 0);
		awaitStatus(welcome, "SUCCEEDED");
		awaitStatus(flaky, "FAILED");
		awaitStatus(unknownKind, "FAILED");

		// One job, without its payload (management.endpoint.sqlqueue.show-payload is off).
		this.http.get()
			.uri("/actuator/sqlqueue/{id}", flaky)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.handler").isEqualTo("report.build")
			.jsonPath("$.queue").isEqualTo("reports")
			.jsonPath("$.attempts").isEqualTo(3)
			.jsonPath("$.lastError").value((error) -> assertThat((String) error).contains("run 3 of report"))
			.jsonPath("$.payload").doesNotExist()
			.jsonPath("$.finishedAt").exists();
		this.http.get().uri("/actuator/sqlqueue/{id}", Long.MAX_VALUE).exchange().expectStatus().isNotFound();

		// Counts per queue and state, read when asked.
		this.http.get()
			.uri("/actuator/sqlqueue")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.queues.reports.jobs.FAILED").isEqualTo(2)
			.jsonPath("$.queues.reports.totalWorkers").isEqualTo(2)
			.jsonPath("$.queues.mail.jobs.SUCCEEDED").isEqualTo(1)
			.jsonPath("$.queues.mail.jobs.QUEUED").isEqualTo(1)
			.jsonPath("$.queues.mail.totalWorkers").isEqualTo(4);

		// Retry one failed job: runs 4 and 5 fail, run 6 succeeds.
		Map<?, ?> retried = post("/actuator/sqlqueue/" + flaky, Map.of("action", "retry"), 200);
		assertThat(retried.get("done")).isEqualTo(true);
		assertThat(retried.get("status")).isIn("QUEUED", "RUNNING");
		awaitStatus(flaky, "SUCCEEDED");
		assertThat(post("/actuator/sqlqueue/" + flaky, Map.of("action", "retry"), 200).get("done")).isEqualTo(false);

		// Retry every failed job of a handler: the unknown kind fails again at once.
		Map<?, ?> retriedAll = post("/actuator/sqlqueue", Map.of("action", "retry-failed", "handler", "report.build"),
				200);
		assertThat(retriedAll.get("retried")).isEqualTo(1);
		assertThat(((List<?>) retriedAll.get("ids")).stream().map((id) -> ((Number) id).longValue()))
			.containsExactly(unknownKind);

		// Cancel the queued follow-up mail.
		Map<?, ?> cancelled = post("/actuator/sqlqueue/" + followup, Map.of("action", "cancel"), 200);
		assertThat(cancelled.get("done")).isEqualTo(true);
		assertThat(cancelled.get("status")).isEqualTo("CANCELLED");
		this.http.post()
			.uri("/actuator/sqlqueue/{id}", followup)
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("action", "delete"))
			.exchange()
			.expectStatus()
			.isBadRequest();

		// Pause a queue on every instance, over HTTP; a bad or unknown queue is a 400 and stores nothing.
		assertThat(post("/actuator/sqlqueue/queues/reports", Map.of("action", "pause"), 200).get("done")).isEqualTo(true);
		assertThat(post("/actuator/sqlqueue/queues/reports", Map.of("action", "pause"), 200).get("done"))
			.isEqualTo(false);
		for (String bad : List.of("no!such", "nowhere")) {
			this.http.post()
				.uri("/actuator/sqlqueue/queues/{queue}", bad)
				.contentType(MediaType.APPLICATION_JSON)
				.body(Map.of("action", "pause"))
				.exchange()
				.expectStatus()
				.isBadRequest();
		}
		this.http.get()
			.uri("/actuator/sqlqueue")
			.exchange()
			.expectBody()
			.jsonPath("$.queues.reports.paused.pausedAt").exists()
			.jsonPath("$.queues.nowhere").doesNotExist()
			.jsonPath("$.instances[0].gone").isEqualTo(false);
		assertThat(post("/actuator/sqlqueue/queues/reports", Map.of("action", "resume"), 200).get("done"))
			.isEqualTo(true);

		// Health: the queue's indicator, from the counts read every 100 ms.
		await().atMost(TIMEOUT).untilAsserted(() -> this.http.get()
			.uri("/actuator/health")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.status").isEqualTo("UP")
			.jsonPath("$.components.sqlqueue.status").isEqualTo("UP")
			.jsonPath("$.components.sqlqueue.details.manager").isEqualTo("running")
			.jsonPath("$.components.sqlqueue.details.queues.mail.CANCELLED").isEqualTo(1)
			.jsonPath("$.components.sqlqueue.details.queues.reports.FAILED").isEqualTo(1));

		// The meters, as Prometheus scrapes them.
		await().atMost(TIMEOUT).untilAsserted(() -> {
			String scrape = prometheus();
			assertThat(sample(scrape, "sqlqueue_jobs_enqueued_total", "handler=\"mail.welcome\"", "queue=\"mail\""))
				.isEqualTo(1);
			assertThat(sample(scrape, "sqlqueue_jobs_enqueued_total", "handler=\"report.build\"")).isEqualTo(2);
			assertThat(sample(scrape, "sqlqueue_jobs_finished_total", "handler=\"mail.welcome\"",
					"outcome=\"succeeded\"")).isEqualTo(1);
			assertThat(sample(scrape, "sqlqueue_jobs_finished_total", "handler=\"mail.followup\"",
					"outcome=\"cancelled\"")).isEqualTo(1);
			assertThat(sample(scrape, "sqlqueue_jobs_finished_total", "handler=\"report.build\"",
					"outcome=\"retried\"")).isEqualTo(4);
			assertThat(sample(scrape, "sqlqueue_jobs_finished_total", "handler=\"report.build\"",
					"outcome=\"failed\"")).isEqualTo(3);
			assertThat(sample(scrape, "sqlqueue_jobs_finished_total", "handler=\"report.build\"",
					"outcome=\"succeeded\"")).isEqualTo(1);
			assertThat(sample(scrape, "sqlqueue_jobs_execution_seconds_count", "handler=\"report.build\"",
					"outcome=\"retried\"")).isEqualTo(4);
			assertThat(sample(scrape, "sqlqueue_jobs_wait_seconds_count", "handler=\"report.build\"")).isEqualTo(8);
			assertThat(sample(scrape, "sqlqueue_claim_batch_size_jobs_sum", "queue=\"reports\"")).isEqualTo(8);
			assertThat(sample(scrape, "sqlqueue_workers_concurrency", "queue=\"mail\"")).isEqualTo(4);
			assertThat(sample(scrape, "sqlqueue_workers_busy", "queue=\"reports\"")).isZero();
			assertThat(sample(scrape, "sqlqueue_jobs", "queue=\"reports\"", "status=\"failed\"")).isEqualTo(1);
			assertThat(sample(scrape, "sqlqueue_jobs", "queue=\"reports\"", "status=\"succeeded\"")).isEqualTo(1);
			assertThat(sample(scrape, "sqlqueue_jobs", "queue=\"mail\"", "status=\"cancelled\"")).isEqualTo(1);
			assertThat(sample(scrape, "sqlqueue_jobs_oldest_due_age_seconds", "queue=\"mail\"")).isZero();
		});
	}

	private long requestReport(String kind, int failTimes) {
		return ((Number) post("/reports", Map.of("kind", kind, "failTimes", failTimes), 202).get("jobId")).longValue();
	}

	private Map<?, ?> post(String uri, Map<String, Object> body, int status) {
		return this.http.post()
			.uri(uri)
			.contentType(MediaType.APPLICATION_JSON)
			.body(body)
			.exchange()
			.expectStatus()
			.isEqualTo(status)
			.expectBody(Map.class)
			.returnResult()
			.getResponseBody();
	}

	private Map<?, ?> job(long id) {
		return this.http.get()
			.uri("/actuator/sqlqueue/{id}", id)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(Map.class)
			.returnResult()
			.getResponseBody();
	}

	private void awaitStatus(long id, String status) {
		await().atMost(TIMEOUT)
			.pollInterval(Duration.ofMillis(50))
			.untilAsserted(() -> assertThat(job(id).get("status")).as("status of job %d", id).isEqualTo(status));
	}

	private String prometheus() {
		return this.http.get()
			.uri("/actuator/prometheus")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
	}

	/** The value of the one sample of this metric that has all these labels. */
	private static double sample(String scrape, String name, String... labels) {
		return scrape.lines()
			.filter((line) -> line.startsWith(name + "{"))
			.filter((line) -> Arrays.stream(labels).allMatch(line::contains))
			.map((line) -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
			.reduce((a, b) -> {
				throw new AssertionError("More than one sample of " + name + " with " + Arrays.toString(labels));
			})
			.orElseThrow(() -> new AssertionError("No sample of " + name + " with " + Arrays.toString(labels)
					+ " in:\n" + scrape.lines().filter((line) -> line.startsWith("sqlqueue")).toList()));
	}

}
