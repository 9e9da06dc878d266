package io.sqlqueue.sample;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import io.sqlqueue.JobStatus;
import io.sqlqueue.sample.ReportController.ReportBuilt;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code POST /reports?waitSeconds=N}: the request awaits its job, which the Manager runs in
 * the background as in production ({@code sqlqueue.test.run-in-background}: the test kit is
 * on the class path, and awaiting needs a worker other than the request's thread).
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
		"spring.datasource.url=jdbc:h2:mem:awaited-test;DB_CLOSE_DELAY=-1",
		"sqlqueue.manager.poll-interval=50ms",
		"sqlqueue.test.run-in-background=true" })
@AutoConfigureRestTestClient
class AwaitedReportTests {

	@Autowired
	private RestTestClient http;

	@Test
	void awaitedReportAnswersHowItsJobEnded() {
		ReportBuilt built = this.http.post()
			.uri("/reports?waitSeconds=20")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("kind", "nonsense"))
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(ReportBuilt.class)
			.returnResult()
			.getResponseBody();
		assertThat(built.status()).isEqualTo(JobStatus.FAILED);
		assertThat(built.report()).isNull();
		assertThat(built.error()).contains("Unknown report kind 'nonsense'");
		this.http.post()
			.uri("/reports?waitSeconds=31")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("kind", "signups"))
			.exchange()
			.expectStatus()
			.isBadRequest();
	}

}
