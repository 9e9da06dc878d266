package io.sqlqueue.sample;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.servlet.client.RestTestClient;

import io.sqlqueue.JobStatus;
import io.sqlqueue.sample.ReportController.ReportBuilt;
import io.sqlqueue.sample.ReportController.ReportRequested;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample end to end: a real server on a random port, real HTTP, the starter's Manager
 * running the jobs on an in-memory H2 database.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
		"spring.datasource.url=jdbc:h2:mem:sample-test;DB_CLOSE_DELAY=-1",
		"sqlqueue.poll-interval=50ms",
		"sqlqueue.retry.initial-backoff=50ms",
		"sqlqueue.retry.max-backoff=200ms",
		"sample.followup-delay=3s" })
@AutoConfigureRestTestClient
class SampleApplicationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	@Autowired
	private RestTestClient http;

	@Autowired
	private JdbcClient jdbc;

	@Test
	void signUpSendsTheWelcomeMailThroughTheQueue() {
		Signup signup = signUp("ada@example.com", "Ada");
		assertThat(signup.userId()).isPositive();

		JobView welcome = awaitStatus(signup.welcomeJobId(), "SUCCEEDED");
		assertThat(welcome.handler()).isEqualTo("mail.welcome");
		assertThat(welcome.queue()).isEqualTo("mail");
		assertThat(welcome.attempts()).isEqualTo(1);
		assertThat(welcome.payload()).containsEntry("email", "ada@example.com");
		assertThat(welcome.result()).containsEntry("recipient", "ada@example.com");
		assertThat(welcome.finishedAt()).isNotNull();
		String messageId = this.jdbc
			.sql("SELECT message_id FROM sent_mail WHERE user_id = :userId AND kind = 'welcome'")
			.param("userId", signup.userId())
			.query(String.class)
			.single();
		assertThat(welcome.result()).containsEntry("messageId", messageId);
	}

	@Test
	void duplicateSignUpIsAConflictAndQueuesNothing() {
		signUp("grace@example.com", "Grace");
		long jobsBefore = countJobs();

		this.http.post()
			.uri("/signups")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("email", "Grace@Example.com", "name", "Grace again"))
			.exchange()
			.expectStatus()
			.isEqualTo(409)
			.expectBody()
			.jsonPath("$.detail")
			.isEqualTo("A user with email grace@example.com already exists");

		assertThat(countJobs()).isEqualTo(jobsBefore);
		assertThat(this.jdbc.sql("SELECT COUNT(*) FROM app_user WHERE email = 'grace@example.com'")
			.query(Long.class)
			.single()).isEqualTo(1);
	}

	@Test
	void invalidSignUpIsABadRequest() {
		this.http.post()
			.uri("/signups")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("email", "not-an-email", "name", "X"))
			.exchange()
			.expectStatus()
			.isBadRequest();
	}

	@Test
	void followUpMailIsSentAfterItsDelay() {
		Signup signup = signUp("alan@example.com", "Alan");
		JobView queued = job(signup.followupJobId());
		assertThat(queued.status()).isEqualTo("QUEUED");
		assertThat(queued.runAt()).isAfter(queued.createdAt().plusSeconds(2));

		JobView sent = awaitStatus(signup.followupJobId(), "SUCCEEDED");
		assertThat(sent.handler()).isEqualTo("mail.followup");
		assertThat(sent.startedAt()).isAfterOrEqualTo(queued.runAt());
		assertThat(this.jdbc.sql("SELECT COUNT(*) FROM sent_mail WHERE user_id = :userId AND kind = 'followup'")
			.param("userId", signup.userId())
			.query(Long.class)
			.single()).isEqualTo(1);
	}

	@Test
	void queuedJobCanBeCancelledOnce() {
		Signup signup = signUp("barbara@example.com", "Barbara");
		JobView cancelled = this.http.post()
			.uri("/jobs/{id}/cancel", signup.followupJobId())
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(JobView.class)
			.returnResult()
			.getResponseBody();
		assertThat(cancelled.status()).isEqualTo("CANCELLED");

		this.http.post().uri("/jobs/{id}/cancel", signup.followupJobId()).exchange().expectStatus().isEqualTo(409);
	}

	@Test
	void unknownJobIsNotFound() {
		this.http.get().uri("/jobs/{id}", Long.MAX_VALUE).exchange().expectStatus().isNotFound();
		this.http.post().uri("/jobs/{id}/retry", Long.MAX_VALUE).exchange().expectStatus().isNotFound();
		this.http.post().uri("/jobs/{id}/cancel", Long.MAX_VALUE).exchange().expectStatus().isNotFound();
	}

	@Test
	void reportThatFailsTwiceSucceedsOnTheThirdAttempt() {
		ReportRequested report = requestReport("signups", 2);

		JobView job = awaitStatus(report.jobId(), "SUCCEEDED");
		assertThat(job.attempts()).isEqualTo(3);
		assertThat(job.maxAttempts()).isEqualTo(3);
		assertThat(job.lastError()).contains("IllegalStateException", "run 2 of report " + report.reportId());
		assertThat(job.result()).containsEntry("reportId", (int) report.reportId()).containsEntry("run", 3);
		this.http.get()
			.uri("/reports/{id}", report.reportId())
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo("READY")
			.jsonPath("$.runs")
			.isEqualTo(3);
	}

	@Test
	void reportThatKeepsFailingEndsFailedAndCanBeRetried() {
		ReportRequested report = requestReport("mails", 5);

		JobView failed = awaitStatus(report.jobId(), "FAILED");
		assertThat(failed.attempts()).isEqualTo(3);
		assertThat(failed.result()).isNull();
		assertThat(failed.lastError()).startsWith("java.lang.IllegalStateException")
			.contains("run 3 of report " + report.reportId());
		this.http.get()
			.uri("/reports/{id}", report.reportId())
			.exchange()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo("FAILED");

		// Only a FAILED job can be retried: a second retry while it is queued or running is a conflict.
		JobView retried = this.http.post()
			.uri("/jobs/{id}/retry", report.jobId())
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(JobView.class)
			.returnResult()
			.getResponseBody();
		assertThat(retried.status()).isIn("QUEUED", "RUNNING");

		// Runs 4 and 5 fail, run 6 (the third attempt of the retry) succeeds.
		JobView succeeded = awaitStatus(report.jobId(), "SUCCEEDED");
		assertThat(succeeded.attempts()).isEqualTo(3);
		assertThat(succeeded.result()).containsEntry("run", 6);

		this.http.post().uri("/jobs/{id}/retry", report.jobId()).exchange().expectStatus().isEqualTo(409);
	}

	@Test
	void reportOfUnknownKindFailsAtOnceWithoutRetries() {
		ReportRequested report = requestReport("nonsense", 0);

		JobView failed = awaitStatus(report.jobId(), "FAILED");
		assertThat(failed.attempts()).isEqualTo(1);
		assertThat(failed.lastError()).startsWith("io.sqlqueue.NonRetryableException")
			.contains("Unknown report kind 'nonsense'");
	}

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

	private Signup signUp(String email, String name) {
		return this.http.post()
			.uri("/signups")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("email", email, "name", name))
			.exchange()
			.expectStatus()
			.isCreated()
			.expectHeader()
			.exists("Location")
			.expectBody(Signup.class)
			.returnResult()
			.getResponseBody();
	}

	private ReportRequested requestReport(String kind, int failTimes) {
		return this.http.post()
			.uri("/reports")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("kind", kind, "failTimes", failTimes))
			.exchange()
			.expectStatus()
			.isAccepted()
			.expectBody(ReportRequested.class)
			.returnResult()
			.getResponseBody();
	}

	private JobView job(long id) {
		return this.http.get()
			.uri("/jobs/{id}", id)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(JobView.class)
			.returnResult()
			.getResponseBody();
	}

	private JobView awaitStatus(long id, String status) {
		AtomicReference<JobView> last = new AtomicReference<>();
		await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
			last.set(job(id));
			assertThat(last.get().status()).as("status of job %d (last error: %s)", id, last.get().lastError())
				.isEqualTo(status);
		});
		return last.get();
	}

	private long countJobs() {
		return this.jdbc.sql("SELECT COUNT(*) FROM queue_job").query(Long.class).single();
	}

	record Signup(long userId, long welcomeJobId, long followupJobId) {
	}

	record ReportRequested(long reportId, long jobId) {
	}

	record JobView(long id, String queue, String handler, String status, int attempts, int maxAttempts,
			Map<String, Object> payload, Map<String, Object> result, String lastError, java.time.Instant runAt,
			java.time.Instant createdAt, java.time.Instant startedAt, java.time.Instant finishedAt) {
	}

}
