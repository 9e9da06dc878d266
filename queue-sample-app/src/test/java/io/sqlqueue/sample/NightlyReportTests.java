package io.sqlqueue.sample;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.servlet.client.RestTestClient;

import io.sqlqueue.JobOutcome;
import io.sqlqueue.testkit.RanJob;
import io.sqlqueue.testkit.SqlQueueTester;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The nightly report schedule: declared from {@code @Recurring} at start-up, listed by the
 * {@code sqlqueue} endpoint, and triggered through it; the test runs the jobs the trigger
 * made with the test kit.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
		"spring.datasource.url=jdbc:h2:mem:nightly-test;DB_CLOSE_DELAY=-1" })
@AutoConfigureRestTestClient
class NightlyReportTests {

	@Autowired
	private RestTestClient http;

	@Autowired
	private JdbcClient jdbc;

	@Autowired
	private SqlQueueTester jobs;

	@Test
	void isListedPausedResumedAndTriggeredThroughTheEndpoint() {
		this.http.get()
			.uri("/actuator/sqlqueue")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.schedules['nightly-report'].cron").isEqualTo("0 0 2 * * *")
			.jsonPath("$.schedules['nightly-report'].zone").isEqualTo("Europe/Berlin")
			.jsonPath("$.schedules['nightly-report'].handler").isEqualTo("report.nightly")
			.jsonPath("$.schedules['nightly-report'].source").isEqualTo("ANNOTATION")
			.jsonPath("$.schedules['nightly-report'].paused").isEqualTo(false);

		assertThat(schedule("pause").get("done")).isEqualTo(true);
		assertThat(schedule("resume").get("done")).isEqualTo(true);
		Map<?, ?> triggered = schedule("trigger");
		assertThat(triggered.get("done")).isEqualTo(true);
		assertThat(triggered.get("jobId")).isNotNull();
		assertThat(this.jobs.runDue()).as("the triggered job, then the report job it enqueued")
			.extracting(RanJob::handler, RanJob::outcome)
			.containsExactly(tuple("report.nightly", JobOutcome.SUCCEEDED), tuple("report.build", JobOutcome.SUCCEEDED));
		assertThat(this.jdbc.sql("SELECT COUNT(*) FROM report WHERE status = 'READY'").query(Integer.class).single())
			.isEqualTo(1);
	}

	private Map<?, ?> schedule(String action) {
		return this.http.post()
			.uri("/actuator/sqlqueue/schedules/nightly-report")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("action", action))
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(Map.class)
			.returnResult()
			.getResponseBody();
	}

}
