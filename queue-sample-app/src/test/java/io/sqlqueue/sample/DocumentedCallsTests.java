package io.sqlqueue.sample;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.sqlqueue.sample.DocumentedCalls.Answer;
import io.sqlqueue.sample.DocumentedCalls.AnswerCheck;
import io.sqlqueue.sample.DocumentedCalls.Call;

import static io.sqlqueue.sample.DocumentedCalls.repositoryFile;
import static io.sqlqueue.sample.DocumentedCalls.run;
import static io.sqlqueue.sample.DocumentedCalls.step;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code curl} in {@code README.md}, {@code docs/*.md} and
 * {@code queue-sample-app/USAGE.md} answers what the page says.
 * <p>
 * Each page is read from the repository and its curl commands run in page order, over real
 * HTTP, against a fresh sample application with its own settings (2 s initial backoff,
 * 30 s follow-up delay, counts every 5 s), on an in-memory H2 database and a free port: the
 * timings the pages promise are the real ones. Each command has a step below with the
 * check of what its comment or shown output promises; {@link DocumentedCalls} adds the
 * checks every call gets (status, headers, the JSON fragments the page shows) and fails
 * when a page has a command without a step. A page change that changes an answer changes
 * its step too. A page that goes on from another ({@code docs/operations.md} curls the jobs
 * the README's calls made) runs after it on the same application; a page with curl commands
 * that no test here runs fails {@link #everyPageWithCurlCommandsIsRun}.
 */
class DocumentedCallsTests {

	/** The pages each test below runs, in the order it runs them. */
	private static final List<List<String>> RUNS = List.of(List.of("README.md", "docs/operations.md"),
			List.of("queue-sample-app/USAGE.md"), List.of("docs/durable-steps.md"));

	/** "A moment later", "right away", "at once". */
	private static final Duration MOMENT = Duration.ofSeconds(5);

	/** "After about 6 s" of retries (2 s + 4 s ± 20 %), with room for a busy machine. */
	private static final Duration RETRIES = Duration.ofSeconds(30);

	@Test
	void everyPageWithCurlCommandsIsRun() throws IOException {
		Set<String> run = RUNS.stream().flatMap(List::stream).collect(Collectors.toSet());
		for (Path page : DocumentedCalls.documentedPages()) {
			if (!DocumentedCurl.read(page).isEmpty()) {
				assertThat(run).as("pages whose curl commands a test of DocumentedCallsTests runs")
					.contains(repositoryFile("").relativize(page).toString());
			}
		}
	}

	@Test
	void readmeAndOperationsCallsAnswerAsTheySay() throws Exception {
		run(RUNS.get(0).stream().map(DocumentedCalls::repositoryFile).toList(), List.of(
				step("""
						curl -i -X POST localhost:8080/signups -H 'Content-Type: application/json' \
						     -d '{"email": "ada@example.com", "name": "Ada"}'""",
						(call) -> assertThat(call.send().header("Location")).isEqualTo("/users/1")),
				step("curl localhost:8080/jobs/1", (call) -> {
					Answer job = call.until(MOMENT, status("SUCCEEDED"));
					assertThat(job.json("$.result.recipient")).as("the handler's result").isEqualTo("ada@example.com");
				}),
				step("""
						curl -X POST localhost:8080/reports -H 'Content-Type: application/json' \
						     -d '{"kind": "mails", "failTimes": 5}'""", (call) -> {
					assertThat(call.send().json("$.jobId")).isEqualTo(3);
					Answer job = call.app().awaitJob(3, "FAILED", RETRIES);
					assertThat(job.json("$.attempts")).as("attempts").isEqualTo(3);
					assertThat(job.json("$.maxAttempts")).as("maxAttempts").isEqualTo(3);
					assertThat((String) job.json("$.lastError")).as("lastError").startsWith(
							"java.lang.IllegalStateException: The report source is unavailable (simulated: run 3 of report 1 ");
				}),
				step("curl localhost:8080/actuator/health", (call) -> call.until(MOMENT, (answer) -> {
					assertThat(answer.json("$.status")).isEqualTo("UP");
					assertThat(answer.json("$.components.sqlqueue.status")).isEqualTo("UP");
					assertThat(answer.json("$.components.sqlqueue.details.manager")).isEqualTo("running");
				})),
				step("curl -s localhost:8080/actuator/prometheus | grep ^sqlqueue", (call) -> {
					List<String> lines = call.send().body().lines().toList();
					assertThat(lines).isNotEmpty()
						.allMatch((line) -> line.startsWith("sqlqueue"))
						.anyMatch((line) -> line.startsWith("sqlqueue_jobs_enqueued_total{"))
						.anyMatch((line) -> line.startsWith("sqlqueue_jobs_finished_total{"))
						.anyMatch((line) -> line.startsWith("sqlqueue_jobs{"));
				}),
				step("curl localhost:8080/actuator/sqlqueue", (call) -> {
					Answer counts = call.send();
					assertThat(counts.json("$.queues.mail.jobs")).isEqualTo(jobs(1, 0, 1, 0, 0));
					assertThat(counts.json("$.queues.reports.jobs")).isEqualTo(jobs(0, 0, 0, 1, 0));
					assertThat(counts.instant("$.countedAt")).as("counted now")
						.isBetween(Instant.now().minusSeconds(5), Instant.now());
				}),
				step("curl localhost:8080/actuator/sqlqueue/3", (call) -> {
					Answer job = call.send();
					assertThat(job.json("$.id")).isEqualTo(3);
					assertThat(job.json("$.status")).isEqualTo("FAILED");
					assertThat(job.json("$.attempts")).isEqualTo(3);
					assertThat((String) job.json("$.lastError")).startsWith("java.lang.IllegalStateException");
					assertThat(job.has("$.result")).as("result of a failed job").isFalse();
					assertThat(job.has("$.payload")).as("payload, shown only with show-payload").isFalse();
					for (String time : List.of("runAt", "createdAt", "updatedAt", "startedAt", "finishedAt")) {
						assertThat(job.instant("$." + time)).as(time).isNotNull();
					}
				}),
				step("""
						curl -X POST localhost:8080/actuator/sqlqueue/3 -H 'Content-Type: application/json' \
						-d '{"action": "retry"}'""", (call) -> {
					assertThat(call.send().json("$.message"))
						.isEqualTo("Job 3 is queued again with a fresh set of attempts");
					// Its first new attempt may have started (and failed: run 4 of 5) by now.
					assertThat(call.app().job(3).json("$.attempts")).as("a fresh set of attempts").isIn(0, 1);
				}),
				step("""
						curl -X POST localhost:8080/actuator/sqlqueue/2 -H 'Content-Type: application/json' \
						-d '{"action": "cancel"}'""", (call) -> {
					Answer followup = call.app().job(2);
					assertThat(followup.instant("$.runAt")).as("job 2 waits 30 s after its sign-up")
						.isEqualTo(followup.instant("$.createdAt").plusSeconds(30))
						.isAfter(Instant.now());
					assertThat(call.send().json("$.status")).isEqualTo("CANCELLED");
				}),
				step("""
						curl -X POST localhost:8080/actuator/sqlqueue -H 'Content-Type: application/json' \
						-d '{"action": "retry-failed", "queue": "reports"}'""", (call) -> {
					Answer retried = call.send();
					assertThat(retried.json("$.action")).isEqualTo("retry-failed");
					assertThat(retried.json("$.queue")).isEqualTo("reports");
					assertThat(retried.json("$.retried")).isEqualTo(((List<?>) retried.json("$.ids")).size());
				}),
				step("""
						curl -X POST localhost:8080/actuator/sqlqueue/queues/mail -H 'Content-Type: application/json' \
						-d '{"action": "pause"}'""", (call) -> {
					Answer paused = call.send();
					assertThat((String) paused.json("$.message")).startsWith("Queue 'mail' is paused");
					assertThat(call.app().get("/actuator/sqlqueue").has("$.queues.mail.paused.pausedAt")).isTrue();
				}),
				step("""
						curl -X POST localhost:8080/actuator/sqlqueue/queues/mail -H 'Content-Type: application/json' \
						-d '{"action": "resume"}'""", (call) -> {
					assertThat(call.send().json("$.message")).isEqualTo("Queue 'mail' is resumed");
				}),
				step("curl 'localhost:8080/actuator/sqlqueue/jobs/search?tags=signup&limit=10'", (call) -> {
					Answer page = call.send();
					assertThat(page.json("$.jobs[*].id").toString()).as("Ada's mails, newest first").isEqualTo("[2,1]");
					assertThat(page.json("$.jobs[0].status")).isEqualTo("CANCELLED");
				}),
				step("curl 'localhost:8080/actuator/sqlqueue/jobs/count?tags=signup&meta=user=1&status=CANCELLED'",
						Call::send),
				step("""
						curl -X POST localhost:8080/actuator/sqlqueue -H 'Content-Type: application/json' \
						-d '{"action": "count", "tags": "signup", "status": "CANCELLED"}'""", Call::send),
				step("""
						curl -X POST localhost:8080/actuator/sqlqueue -H 'Content-Type: application/json' \
						-d '{"action": "delete", "tags": "signup", "status": "CANCELLED"}'""", (call) -> {
					assertThat(call.send().json("$.message")).isEqualTo("Deleted 1 of 1 matching job");
					assertThat(call.app().send(new DocumentedCurl.Request("GET", "/actuator/sqlqueue/2", Map.of(), null,
							null)).status()).as("job 2, deleted").isEqualTo(404);
				}),
				step("""
						curl -i -X POST localhost:8080/actuator/sqlqueue -H 'Content-Type: application/json' \
						-d '{"action": "cancel"}'""", (call) -> assertThat(call.send().body())
					.contains("A bulk action needs a filter"))));
	}

	@Test
	void usageCallsAnswerAsUsageSays() throws Exception {
		String signUpAda = """
				curl -i -X POST localhost:8080/signups -H 'Content-Type: application/json' \
				     -d '{"email": "ada@example.com", "name": "Ada"}'""";
		run(RUNS.get(1).stream().map(DocumentedCalls::repositoryFile).toList(), List.of(
				step(signUpAda, Call::send),
				step("curl localhost:8080/jobs/1", (call) -> {
					Answer job = call.until(MOMENT, status("SUCCEEDED"));
					assertThat(job.json("$.payload")).isEqualTo(Map.of("userId", 1, "email", "ada@example.com", "name", "Ada"));
					assertThat((String) job.json("$.result.messageId")).matches("<[0-9a-f-]{36}@sample\\.sqlqueue\\.io>");
					assertThat(job.instant("$.runAt")).as("runAt").isEqualTo(job.instant("$.createdAt"));
					assertThat(job.instant("$.finishedAt")).as("finishedAt")
						.isEqualTo(job.instant("$.updatedAt"))
						.isAfterOrEqualTo(job.instant("$.startedAt"));
				}),
				step("curl localhost:8080/jobs/2", (call) -> {
					Answer job = call.send();
					assertThat(job.json("$.status")).isEqualTo("QUEUED");
					assertThat(job.instant("$.runAt")).as("runAt").isEqualTo(job.instant("$.createdAt").plusSeconds(30));
					call.later(() -> call.until(Duration.ofSeconds(45), status("SUCCEEDED")));
				}),
				step("curl localhost:8080/users/1", (call) -> {
					Answer user = call.send();
					assertThat(user.json("$.email")).isEqualTo("ada@example.com");
					assertThat(user.json("$.mails[*].kind")).as("mails sent so far").isEqualTo(List.of("welcome"));
					assertThat(user.json("$.mails[0].jobId")).isEqualTo(1);
				}),
				step(signUpAda, (call) -> {
					call.send();
					assertThat(call.app().get("/jobs/3").status()).as("GET /jobs/3: no job was queued").isEqualTo(404);
				}),
				step("""
						curl -X POST localhost:8080/reports -H 'Content-Type: application/json' \
						-d '{"kind": "signups", "failTimes": 2}'""", Call::send),
				step("curl localhost:8080/jobs/3", (call) -> {
					Answer first = call.until(MOMENT, (answer) -> {
						assertThat(answer.json("$.status")).isEqualTo("QUEUED");
						assertThat(answer.json("$.attempts")).isEqualTo(1);
					});
					assertThat(Duration.between(first.instant("$.updatedAt"), first.instant("$.runAt")))
						.as("runAt after the first attempt: 2 s ± 20 % later")
						.isBetween(Duration.ofMillis(1600), Duration.ofMillis(2400));
					Answer done = call.until(RETRIES, status("SUCCEEDED"));
					assertThat(done.json("$.attempts")).isEqualTo(3);
					assertThat(done.json("$.result.lines[*].count")).isEqualTo(List.of(1));
					assertThat((String) done.json("$.lastError")).as("the last failed attempt").contains("run 2 of report 1 ");
					assertTookAbout6Seconds(done);
				}),
				step("curl localhost:8080/reports/1",
						(call) -> assertThat((String) call.send().json("$.summary")).matches("\\d{4}-\\d{2}-\\d{2}: 1\n")),
				step("""
						curl -X POST localhost:8080/reports -H 'Content-Type: application/json' \
						-d '{"kind": "mails", "failTimes": 5}'""", Call::send),
				step("curl localhost:8080/jobs/4", (call) -> {
					Answer failed = call.until(RETRIES, status("FAILED"));
					assertThat(failed.json("$.attempts")).isEqualTo(3);
					assertTookAbout6Seconds(failed);
				}),
				step("curl -X POST localhost:8080/jobs/4/retry", Call::send),
				step("curl localhost:8080/jobs/4", (call) -> {
					Answer done = call.until(RETRIES, status("SUCCEEDED"));
					assertThat(done.json("$.attempts")).isEqualTo(3);
					assertThat((String) done.json("$.lastError")).as("runs 4 and 5 fail").contains("run 5 of report 2 ");
				}),
				step("curl -i -X POST localhost:8080/jobs/4/retry", Call::send),
				step("""
						curl -X POST localhost:8080/reports -H 'Content-Type: application/json' \
						-d '{"kind": "weather"}'""", Call::send),
				step("curl localhost:8080/jobs/5", (call) -> call.until(MOMENT, status("FAILED"))),
				step("""
						curl -X POST localhost:8080/signups -H 'Content-Type: application/json' \
						-d '{"email": "grace@example.com", "name": "Grace"}'""", Call::send),
				step("curl -X POST localhost:8080/jobs/7/cancel", Call::send),
				step("curl -i -X POST localhost:8080/jobs/7/cancel", Call::send),
				step("curl -i localhost:8080/jobs/999", (call) -> assertThat(call.send().body())
					.isEqualTo("{\"detail\":\"No job 999\",\"instance\":\"/jobs/999\",\"status\":404,\"title\":\"Not Found\"}")),
				step("curl localhost:8080/actuator/health", (call) -> {
					call.app().awaitJob(2, "SUCCEEDED", Duration.ofSeconds(45));
					call.app().awaitJob(6, "SUCCEEDED", MOMENT);
					call.until(Duration.ofSeconds(15), (answer) -> {
						Map<String, Object> mail = jobs(0, 0, 3, 0, 1);
						mail.put("oldestDueAge", "PT0S");
						assertThat(answer.json("$.components.sqlqueue.details.queues.mail")).isEqualTo(mail);
						assertThat(answer.json("$.components.sqlqueue.details.queues.reports.FAILED")).isEqualTo(1);
						assertThat(answer.json("$.status")).isEqualTo("UP");
					});
				}),
				step("curl localhost:8080/actuator/sqlqueue", (call) -> {
					Answer counts = call.send();
					assertThat(counts.json("$.queues.mail.jobs")).isEqualTo(jobs(0, 0, 3, 0, 1));
					assertThat(counts.json("$.queues.reports.totalWorkers")).isEqualTo(2);
				}),
				step("curl localhost:8080/actuator/sqlqueue/5", (call) -> {
					Answer job = call.send();
					assertThat(job.has("$.payload")).as("payload").isFalse();
					assertThat(job.has("$.result")).as("result, null").isFalse();
				}),
				step("""
						curl -X POST localhost:8080/actuator/sqlqueue/5 -H 'Content-Type: application/json' \
						-d '{"action": "retry"}'""", (call) -> {
					assertThat(call.send().json("$.status")).isEqualTo("QUEUED");
					Answer again = call.app().awaitJob(5, "FAILED", MOMENT);
					assertThat(again.json("$.attempts")).as("fails again at once").isEqualTo(1);
				}, "\"status\":\"QUEUED\""),
				step("""
						curl -X POST localhost:8080/actuator/sqlqueue/2 -H 'Content-Type: application/json' \
						-d '{"action": "cancel"}'""", Call::send),
				step("""
						curl -X POST localhost:8080/actuator/sqlqueue -H 'Content-Type: application/json' \
						-d '{"action": "retry-failed", "handler": "report.build"}'""",
						(call) -> assertThat(call.send().json("$.ids")).isEqualTo(List.of(5))),
				step("curl -s localhost:8080/actuator/prometheus | grep ^sqlqueue", (call) -> call
					.until(Duration.ofSeconds(15), (scrape) -> hasDocumentedSamples(call.curl().promise(), scrape))),
				step("""
						curl -X POST 'localhost:8080/reports?waitSeconds=10' -H 'Content-Type: application/json' 						-d '{"kind": "signups"}'""", (call) -> {
					Answer built = call.send();
					assertThat(built.json("$.report.kind")).as("the report the handler returned").isEqualTo("signups");
				}),
				step("""
						curl -X POST localhost:8080/reports/bundles -H 'Content-Type: application/json' \
						-d '{"kinds": ["signups", "mails", "weather"]}'""", (call) -> {
					Answer bundle = call.send();
					assertThat(bundle.json("$.jobIds")).isEqualTo(List.of(9, 10, 11));
					assertThat(call.app().job(12).json("$.status")).as("the callback waits for the batch")
						.isIn("WAITING", "QUEUED", "RUNNING", "SUCCEEDED");
				}),
				step("curl localhost:8080/jobs/12", (call) -> {
					Answer callback = call.until(MOMENT, status("SUCCEEDED"));
					assertThat(callback.json("$.attempts")).as("the callback ran once").isEqualTo(1);
				}),
				step("curl localhost:8080/actuator/sqlqueue/batches/1", Call::send)));
	}

	@Test
	void durableStepsCallsAnswerAsTheySay() throws Exception {
		String paymentCallback = """
				curl -i -X POST localhost:8080/orders/1/payment-callback -H 'Content-Type: application/json' \
				     -d '{"reference": "psp-1", "approved": true}'""";
		run(RUNS.get(2).stream().map(DocumentedCalls::repositoryFile).toList(), List.of(
				step("""
						curl -i -X POST localhost:8080/orders -H 'Content-Type: application/json' \
						     -d '{"item": "teapot", "cents": 4200, "email": "ada@example.com"}'""", Call::send),
				step("curl localhost:8080/jobs/1", (call) -> {
					Answer parked = call.until(MOMENT, (answer) -> {
						assertThat(answer.json("$.status")).isEqualTo("QUEUED");
						assertThat(answer.json("$.steps[*].name")).as("records").isEqualTo(List.of("charge", "payment"));
					});
					assertThat(parked.instant("$.runAt")).as("runAt: the wait's timeout, an hour on")
						.isEqualTo(parked.instant("$.steps[1].wakeAt"))
						.isAfter(Instant.now().plus(Duration.ofMinutes(59)));
					assertThat(parked.json("$.signals")).isEqualTo(List.of());
				}),
				step(paymentCallback, Call::send),
				step("curl localhost:8080/jobs/1", (call) -> {
					Answer done = call.until(MOMENT, status("SUCCEEDED"));
					assertThat(done.json("$.steps[*].name")).as("records")
						.isEqualTo(List.of("charge", "payment", "ship", "mail"));
					assertThat((String) done.json("$.result.messageId")).matches("<[0-9a-f-]{36}@sample\\.sqlqueue\\.io>");
					assertThat(call.app().bean(PaymentClient.class).charges(1)).as("charges of job 1").isEqualTo(1);
				}),
				step(paymentCallback, Call::send),
				step("""
						curl -X POST localhost:8080/actuator/sqlqueue/1 -H 'Content-Type: application/json' \
						     -d '{"action": "retry-from", "record": 3}'""", (call) -> {
					call.send();
					assertThat(call.app().job(1).json("$.steps[*].name")).as("records kept")
						.isEqualTo(List.of("charge", "payment", "ship", "mail"));
				})));
	}

	private static AnswerCheck status(String status) {
		return (job) -> assertThat(job.json("$.status")).as("status").isEqualTo(status);
	}

	/** Jobs per state, as the {@code sqlqueue} endpoint and health show them. */
	private static Map<String, Object> jobs(int queued, int running, int succeeded, int failed, int cancelled) {
		Map<String, Object> jobs = new LinkedHashMap<>();
		jobs.put("WAITING", 0);
		jobs.put("QUEUED", queued);
		jobs.put("RUNNING", running);
		jobs.put("SUCCEEDED", succeeded);
		jobs.put("FAILED", failed);
		jobs.put("CANCELLED", cancelled);
		return jobs;
	}

	/** From the job's creation to its end: "about 6 s", 2 s + 4 s of backoff ± 20 %. */
	private static void assertTookAbout6Seconds(Answer job) {
		assertThat(Duration.between(job.instant("$.createdAt"), job.instant("$.finishedAt")))
			.as("from createdAt to finishedAt")
			.isBetween(Duration.ofMillis(4800), Duration.ofSeconds(15));
	}

	/** Each sample line the page shows, with its value, except times and claim counts, which vary. */
	private static void hasDocumentedSamples(String promise, Answer scrape) {
		Set<String> lines = scrape.body().lines().collect(Collectors.toSet());
		Set<String> varying = Set.of("sqlqueue_jobs_wait_seconds_sum", "sqlqueue_claim_batch_size_jobs_count");
		List<String> documented = promise.lines().filter((line) -> line.startsWith("sqlqueue")).toList();
		assertThat(documented).isNotEmpty();
		for (String sample : documented) {
			String series = sample.substring(0, sample.lastIndexOf(' '));
			if (varying.contains(series.substring(0, series.indexOf('{')))) {
				assertThat(lines).anyMatch((line) -> line.startsWith(series + " "));
			}
			else {
				assertThat(lines).contains(sample);
			}
		}
	}

}
