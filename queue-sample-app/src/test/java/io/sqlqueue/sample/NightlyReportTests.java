package io.sqlqueue.sample;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The nightly report schedule: declared from {@code @Recurring} at start-up, listed by the
 * {@code sqlqueue} endpoint, and triggered through it.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
		"spring.datasource.url=jdbc:h2:mem:nightly-test;DB_CLOSE_DELAY=-1", "sqlqueue.poll-interval=50ms" })
@AutoConfigureRestTestClient
class NightlyReportTests {

	@Autowired
	private RestTestClient http;

	@Autowired
	private JdbcClient jdbc;

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
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.jdbc.sql("SELECT COUNT(*) FROM report WHERE status = 'READY'")
				.query(Integer.class)
				.single() == 1);
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
