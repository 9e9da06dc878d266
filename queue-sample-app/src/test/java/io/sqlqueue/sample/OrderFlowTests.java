package io.sqlqueue.sample;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
 * The order flow of {@link OrderFulfilment} over real HTTP, with the Manager running jobs in
 * the background as in production ({@code sqlqueue.test.run-in-background}), so the payment
 * callback wakes the parked job the way it does in the running sample: the job charges once,
 * parks until the callback, then ships and mails, and its charge is still the one.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
		"spring.datasource.url=jdbc:h2:mem:order-test;DB_CLOSE_DELAY=-1",
		"sqlqueue.manager.poll-interval=50ms",
		"sqlqueue.test.run-in-background=true" })
@AutoConfigureRestTestClient
class OrderFlowTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	@Autowired
	private RestTestClient http;

	@Autowired
	private JdbcClient jdbc;

	@Autowired
	private PaymentClient payments;

	@Autowired
	private Shipments shipments;

	@Test
	void orderChargesOnceWaitsForItsPaymentThenShipsAndMails() {
		long jobId = order("teapot", 4200, "ada@example.com");

		Map<String, Object> parked = awaitParked(jobId);
		assertThat(steps(parked)).extracting((step) -> step.get("kind") + " " + step.get("name"))
			.containsExactly("STEP charge", "SIGNAL payment");
		assertThat(Instant.parse((String) parked.get("runAt"))).as("due at the wait's timeout, an hour on")
			.isEqualTo(Instant.parse((String) steps(parked).get(1).get("wakeAt")))
			.isAfter(Instant.now().plus(Duration.ofMinutes(59)));
		assertThat(parked.get("attempts")).as("a park gives its attempt back").isEqualTo(0);
		assertThat(this.payments.charges(jobId)).as("charges").isEqualTo(1);
		assertThat(this.shipments.shipments(jobId)).as("shipments before the payment").isZero();
		String reference = (String) steps(parked).get(0).get("result");
		assertThat(reference).startsWith("psp-");

		callback(jobId, reference, true, 202);

		Map<String, Object> done = awaitStatus(jobId, "SUCCEEDED");
		assertThat(steps(done)).extracting((step) -> step.get("kind") + " " + step.get("name"))
			.containsExactly("STEP charge", "SIGNAL payment", "STEP ship", "STEP mail");
		@SuppressWarnings("unchecked")
		List<Map<String, Object>> signals = (List<Map<String, Object>>) done.get("signals");
		assertThat(signals).singleElement()
			.satisfies((signal) -> assertThat(signal).containsEntry("name", "payment")
				.containsEntry("payload", Map.of("reference", reference, "approved", true)));
		@SuppressWarnings("unchecked")
		Map<String, Object> result = (Map<String, Object>) done.get("result");
		assertThat(result).containsEntry("paymentReference", reference);
		assertThat(done.get("attempts")).as("attempts: the run that finished").isEqualTo(1);
		assertThat(this.payments.charges(jobId)).as("charges, after the job's second run").isEqualTo(1);
		assertThat(this.shipments.shipments(jobId)).as("shipments").isEqualTo(1);
		assertThat(this.jdbc.sql("SELECT id FROM shipment WHERE job_id = :jobId").param("jobId", jobId)
			.query(Long.class)
			.single()).isEqualTo(((Number) result.get("shipmentId")).longValue());
		assertThat(this.jdbc.sql("""
				SELECT recipient, message_id FROM sent_mail WHERE job_id = :jobId AND kind = 'order-shipped'""")
			.param("jobId", jobId)
			.query((rs, row) -> rs.getString("recipient") + " " + rs.getString("message_id"))
			.list()).containsExactly("ada@example.com " + result.get("messageId"));
	}

	@Test
	void callbackToAnUnknownJobIsNotFoundAndASecondCallbackAConflict() {
		this.http.post()
			.uri("/orders/{id}/payment-callback", Long.MAX_VALUE)
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("reference", "psp-1", "approved", true))
			.exchange()
			.expectStatus()
			.isNotFound()
			.expectBody()
			.jsonPath("$.detail")
			.isEqualTo("No order job " + Long.MAX_VALUE);

		long jobId = order("kettle", 3100, "grace@example.com");
		String reference = (String) steps(awaitParked(jobId)).get(0).get("result");
		callback(jobId, reference, true, 202);
		this.http.post()
			.uri("/orders/{id}/payment-callback", jobId)
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("reference", reference, "approved", true))
			.exchange()
			.expectStatus()
			.isEqualTo(409)
			.expectBody()
			.jsonPath("$.detail")
			.value(String.class, (detail) -> assertThat(detail).contains("Job " + jobId));
		awaitStatus(jobId, "SUCCEEDED");
		callback(jobId, reference, true, 409);
		assertThat(this.payments.charges(jobId)).isEqualTo(1);
		assertThat(this.shipments.shipments(jobId)).isEqualTo(1);
	}

	@Test
	void declinedPaymentFailsTheOrderWithoutShipping() {
		long jobId = order("kettle", 3100, "alan@example.com");
		String reference = (String) steps(awaitParked(jobId)).get(0).get("result");

		callback(jobId, reference, false, 202);

		Map<String, Object> failed = awaitStatus(jobId, "FAILED");
		assertThat((String) failed.get("lastError")).startsWith("io.sqlqueue.NonRetryableException: Payment "
				+ reference + " was declined");
		assertThat(this.shipments.shipments(jobId)).isZero();
		assertThat(this.payments.charges(jobId)).isEqualTo(1);
	}

	@Test
	void badOrderIsABadRequestAndACallbackToAnotherKindOfJobNotFound() {
		this.http.post()
			.uri("/orders")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("item", "teapot", "cents", 0, "email", "ada@example.com"))
			.exchange()
			.expectStatus()
			.isBadRequest();
		long welcomeJobId = ((Number) this.http.post()
			.uri("/signups")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("email", "barbara@example.com", "name", "Barbara"))
			.exchange()
			.expectStatus()
			.isCreated()
			.expectBody(Map.class)
			.returnResult()
			.getResponseBody()
			.get("welcomeJobId")).longValue();
		callback(welcomeJobId, "psp-1", true, 404);
	}

	private long order(String item, long cents, String email) {
		Map<?, ?> accepted = this.http.post()
			.uri("/orders")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("item", item, "cents", cents, "email", email))
			.exchange()
			.expectStatus()
			.isAccepted()
			.expectBody(Map.class)
			.returnResult()
			.getResponseBody();
		long jobId = ((Number) accepted.get("jobId")).longValue();
		return jobId;
	}

	private void callback(long jobId, String reference, boolean approved, int status) {
		this.http.post()
			.uri("/orders/{id}/payment-callback", jobId)
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("reference", reference, "approved", approved))
			.exchange()
			.expectStatus()
			.isEqualTo(status);
	}

	@SuppressWarnings("unchecked")
	private Map<String, Object> job(long id) {
		return this.http.get()
			.uri("/jobs/{id}", id)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(Map.class)
			.returnResult()
			.getResponseBody();
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> steps(Map<String, Object> job) {
		return (List<Map<String, Object>>) job.get("steps");
	}

	/** Until the job is parked waiting for its payment: {@code QUEUED}, with a record of the wait. */
	private Map<String, Object> awaitParked(long id) {
		return await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> job(id), (job) -> job
			.get("status")
			.equals("QUEUED") && steps(job).stream().anyMatch((step) -> step.get("kind").equals("SIGNAL")));
	}

	private Map<String, Object> awaitStatus(long id, String status) {
		return await().atMost(TIMEOUT)
			.pollInterval(Duration.ofMillis(50))
			.until(() -> job(id), (job) -> job.get("status").equals(status));
	}

}
