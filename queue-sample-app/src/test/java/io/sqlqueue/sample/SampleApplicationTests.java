package io.sqlqueue.sample;

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

import io.sqlqueue.JobOutcome;
import io.sqlqueue.testkit.RanJob;
import io.sqlqueue.testkit.SqlQueueTester;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The sample end to end, with the test kit ({@code queue-test}): a real server on a random
 * port, real HTTP, an in-memory H2 database; the Manager does not start, so each test sees
 * what a request enqueued and runs the jobs itself with {@link SqlQueueTester}, on its own
 * thread, through the queue's real SQL — no sleeping, no polling, and retries and delayed
 * jobs run when the test says so.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
		"spring.datasource.url=jdbc:h2:mem:sample-test;DB_CLOSE_DELAY=-1" })
@AutoConfigureRestTestClient
class SampleApplicationTests {

	@Autowired
	private RestTestClient http;

	@Autowired
	private SqlQueueTester jobs;

	@Autowired
	private JdbcClient jdbc;

	@Test
	void signUpSendsTheWelcomeMailThroughTheQueue() {
		Signup signup = signUp("ada@example.com", "Ada");
		assertThat(signup.userId()).isPositive();
		assertThat(this.jobs.assertEnqueued("mail.welcome", WelcomeMail.class))
			.contains(new WelcomeMail(signup.userId(), "ada@example.com", "Ada"));
		assertThat(this.jobs.assertEnqueued("mail.followup", FollowupMail.class))
			.contains(new FollowupMail(signup.userId(), "ada@example.com", "Ada"));

		RanJob sent = this.jobs.run(signup.welcomeJobId());

		assertThat(sent.succeeded()).isTrue();
		assertThat(sent.result(MailReceipt.class).recipient()).isEqualTo("ada@example.com");
		JobView welcome = job(signup.welcomeJobId());
		assertThat(welcome.status()).isEqualTo("SUCCEEDED");
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
		assertThat(queued.runAt()).isEqualTo(queued.createdAt().plusSeconds(30));

		assertThat(ran(this.jobs.runDue(), signup.followupJobId())).as("not due yet").isEmpty();
		assertThat(ran(this.jobs.runDue(true), signup.followupJobId())).extracting(RanJob::outcome)
			.containsExactly(JobOutcome.SUCCEEDED);

		JobView sent = job(signup.followupJobId());
		assertThat(sent.status()).isEqualTo("SUCCEEDED");
		assertThat(sent.handler()).isEqualTo("mail.followup");
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
		assertThat(this.jobs.assertEnqueued("report.build", BuildReport.class))
			.contains(new BuildReport(report.reportId()));

		List<RanJob> attempts = ran(this.jobs.runUntilSettled(), report.jobId());

		assertThat(attempts).extracting(RanJob::attempt, RanJob::outcome)
			.containsExactly(tuple(1, JobOutcome.RETRIED), tuple(2, JobOutcome.RETRIED), tuple(3, JobOutcome.SUCCEEDED));
		assertThat(attempts.get(1).error()).contains("IllegalStateException", "run 2 of report " + report.reportId());
		assertThat(attempts.get(2).result(ReportResult.class).run()).isEqualTo(3);
		JobView job = job(report.jobId());
		assertThat(job.attempts()).isEqualTo(3);
		assertThat(job.maxAttempts()).isEqualTo(3);
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

		assertThat(ran(this.jobs.runUntilSettled(), report.jobId())).extracting(RanJob::outcome)
			.containsExactly(JobOutcome.RETRIED, JobOutcome.RETRIED, JobOutcome.FAILED);
		JobView failed = job(report.jobId());
		assertThat(failed.status()).isEqualTo("FAILED");
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

		// Only a FAILED job can be retried: a second retry while it is queued is a conflict.
		JobView retried = this.http.post()
			.uri("/jobs/{id}/retry", report.jobId())
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(JobView.class)
			.returnResult()
			.getResponseBody();
		assertThat(retried.status()).isEqualTo("QUEUED");
		this.http.post().uri("/jobs/{id}/retry", report.jobId()).exchange().expectStatus().isEqualTo(409);

		// Runs 4 and 5 fail, run 6 (the third attempt of the retry) succeeds.
		assertThat(ran(this.jobs.runUntilSettled(), report.jobId())).extracting(RanJob::outcome)
			.containsExactly(JobOutcome.RETRIED, JobOutcome.RETRIED, JobOutcome.SUCCEEDED);
		JobView succeeded = job(report.jobId());
		assertThat(succeeded.attempts()).isEqualTo(3);
		assertThat(succeeded.result()).containsEntry("run", 6);
	}

	@Test
	void reportOfUnknownKindFailsAtOnceWithoutRetries() {
		ReportRequested report = requestReport("nonsense", 0);

		assertThat(ran(this.jobs.runDue(), report.jobId())).singleElement().satisfies((attempt) -> {
			assertThat(attempt.outcome()).isEqualTo(JobOutcome.FAILED);
			assertThat(attempt.attempt()).isEqualTo(1);
			assertThat(attempt.error()).startsWith("io.sqlqueue.NonRetryableException")
				.contains("Unknown report kind 'nonsense'");
		});
		this.jobs.assertNotEnqueued("report.build");
	}

	/** The attempts of this job, of those the tester ran (other tests' jobs may have run too). */
	private static List<RanJob> ran(List<RanJob> attempts, long jobId) {
		return attempts.stream().filter((attempt) -> attempt.id() == jobId).toList();
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

	private long countJobs() {
		return this.jdbc.sql("SELECT COUNT(*) FROM queue_job").query(Long.class).single();
	}

	record Signup(long userId, long welcomeJobId, long followupJobId) {
	}

	record ReportRequested(long reportId, long jobId) {
	}

	record JobView(long id, String queue, String handler, String status, int attempts, int maxAttempts,
			Map<String, Object> payload, Map<String, Object> result, String lastError, Instant runAt,
			Instant createdAt, Instant startedAt, Instant finishedAt) {
	}

}
