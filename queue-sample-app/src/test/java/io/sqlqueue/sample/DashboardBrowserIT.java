package io.sqlqueue.sample;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import io.sqlqueue.Job;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobStatus;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.Limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard in a real browser (headless Chromium), on the sample application with real
 * jobs: the overview shows the queues, the list filters to the failed reports, a failed
 * job shows its error, one click retries it, and the page shows it succeed. A report
 * whose kind is an HTML tag shows that tag as text, in the list and in the job. Each page
 * is saved under {@code target/dashboard-screenshots/} for a reviewer. Then a queue is
 * paused from the overview (its new job stays queued), the instances show, and a resume runs
 * the job. The failed job's timeline shows each attempt from the database with its worker and
 * error; the audit log shows the retry, the pause and the resume. Last, a search by tag and
 * meta entry finds a campaign's jobs, and a bulk cancel shows their count and cancels them
 * once confirmed.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
		"spring.datasource.url=jdbc:h2:mem:dashboard-browser;DB_CLOSE_DELAY=-1",
		// The operator watches jobs the application runs, as in production (not the test kit's way).
		"sqlqueue.test.run-in-background=true",
		"sqlqueue.manager.poll-interval=50ms",
		"sqlqueue.retry.initial-backoff=50ms",
		"sqlqueue.retry.max-backoff=200ms",
		"sqlqueue.dashboard.refresh-interval=1s",
		"sample.followup-delay=1h" })
@AutoConfigureRestTestClient
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardBrowserIT {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	/** A report kind that would run script if the page wrote it as HTML. */
	/** A time's zone as the browser names it: {@code UTC}, {@code GMT+2}, {@code CEST}. */
	private static final String ZONE = "(UTC|GMT([+-]\\d{1,2}(:\\d{2})?)?|[A-Z]{2,5})";

	private static final String HOSTILE_KIND = "<img src=x onerror=\"document.title='pwned'\">";

	private static WebDriver browser;

	@Autowired
	private RestTestClient http;

	@Autowired
	private JobQueue jobs;

	@Autowired
	private FlowControl flowControl;

	@LocalServerPort
	private int port;

	@BeforeAll
	static void startBrowser() {
		Browser.assumeInstalled();
		browser = Browser.start();
	}

	@AfterAll
	static void stopBrowser() {
		if (browser != null) {
			browser.quit();
		}
	}

	@Test
	@Order(1)
	void operatorFindsAFailedJobRetriesItAndSeesItSucceed() {
		Map<?, ?> ada = post("/signups", Map.of("email", "ada@example.com", "name", "Ada"));
		post("/signups", Map.of("email", "grace@example.com", "name", "Grace"));
		long flaky = ((Number) post("/reports", Map.of("kind", "mails", "failTimes", 3)).get("jobId")).longValue();
		long hostile = ((Number) post("/reports", Map.of("kind", HOSTILE_KIND, "failTimes", 0)).get("jobId"))
			.longValue();
		long fine = ((Number) post("/reports", Map.of("kind", "signups", "failTimes", 0)).get("jobId")).longValue();
		awaitStatus(flaky, JobStatus.FAILED);
		awaitStatus(hostile, JobStatus.FAILED);
		awaitStatus(fine, JobStatus.SUCCEEDED);
		WebDriverWait wait = new WebDriverWait(browser, TIMEOUT);

		// The overview: every queue with its jobs per state and its limits, refreshed live.
		this.flowControl.setLimit("partners", Limit.concurrency(3).withRate(100, Duration.ofMinutes(1)));
		browser.get("http://localhost:" + this.port + "/sqlqueue/");
		wait.until(ExpectedConditions.textToBe(By.cssSelector("tr[data-queue='reports'] td.count-FAILED"), "2"));
		assertThat(text("tr[data-queue='mail'] td.count-SUCCEEDED")).isEqualTo("2");
		// The two follow-up mails are queued to run in an hour: delayed, not due.
		assertThat(text("tr[data-queue='mail'] td.count-QUEUED a")).isEqualTo("2");
		assertThat(text("tr[data-queue='mail'] td.count-QUEUED .due")).isEqualTo("0 due now");
		assertThat(text("tr[data-queue='mail'] td.count-QUEUED .delayed")).isEqualTo("2 delayed");
		assertThat(text("tr[data-queue='reports'] td.workers")).isEqualTo("0 / 2");
		assertThat(text("tr[data-queue='partners'] td.limits")).isEqualTo("queue: concurrency 3, rate 100/1m");
		assertThat(text("tr[data-queue='reports'] td.limits")).isEqualTo("–");
		assertThat(text("#counted")).contains("Workers are those of this instance");
		assertThat(browser.findElements(By.cssSelector("tr[data-queue='reports'] svg.spark rect.bad"))).isNotEmpty();
		// Each minute's bar has its count, and the chart its scale and its minutes.
		assertThat(redrawn(() -> browser.findElements(By.cssSelector("tr[data-queue='reports'] svg.spark text.count"))
			.stream()
			.mapToInt((label) -> Integer.parseInt(label.getText()))
			.sum())).isEqualTo(3);
		assertThat(redrawn(() -> browser.findElements(By.cssSelector("tr[data-queue='reports'] svg.spark text.axis"))
			.stream()
			.map(WebElement::getText)
			.toList())).contains("0", "-15 min", "now");
		assertThat(text("#counted")).matches("Counted at .*" + ZONE + ";.*");
		assertThat(text("#schedules tr[data-schedule='nightly-report']")).contains("report.nightly");
		// The table-health panel: H2 reports no sizes and no holders, and says so, with the reading's time.
		assertThat(text("#tables-note")).matches("Read at .*" + ZONE + " \\(.+ ago\\), from the h2 catalogs\\. "
				+ "Not reported: table sizes, dead rows, .*");
		Browser.screenshot(browser, "1-overview");

		// The list, filtered to the failed reports.
		click(By.id("nav-jobs"));
		WebElement filters = wait.until(ExpectedConditions.presenceOfElementLocated(By.id("filters")));
		filters.findElement(By.name("queue")).sendKeys("reports");
		new Select(filters.findElement(By.name("status"))).selectByValue("FAILED");
		click(By.id("apply"));
		wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#jobs tbody tr[data-job-id]"), 2));
		assertThat(browser.getCurrentUrl()).endsWith("#/jobs?queue=reports&status=FAILED");
		assertThat(rows()).extracting((row) -> row.getAttribute("data-job-id"))
			.containsExactly(String.valueOf(hostile), String.valueOf(flaky));
		assertThat(text("#jobs tr[data-job-id='" + hostile + "'] td.error")).contains(HOSTILE_KIND);
		assertThat(text("#jobs tr[data-job-id='" + flaky + "'] td.error"))
			.contains("The report source is unavailable");
		Browser.screenshot(browser, "2-failed-reports");

		// The failed job: its error with the stack, its timeline, and Retry.
		click(By.linkText("#" + flaky));
		wait.until(ExpectedConditions.textToBe(By.cssSelector("#job-status"), "FAILED"));
		assertThat(text("#last-error")).contains("IllegalStateException: The report source is unavailable")
			.contains("\n");
		assertThat(text("#timeline")).contains("Enqueued").contains("Attempt 3 started").contains("Failed for good");
		// Every attempt from the database, with its worker and its error.
		assertThat(text("#timeline")).contains("Attempt 1 ended: retried on ").contains("Attempt 2 ended: retried on ")
			.contains("Attempt 3 ended: failed on ");
		assertThat(browser.findElements(By.cssSelector("#timeline li.ended .attempt-error")))
			.hasSize(3)
			.allSatisfy((error) -> assertThat(error.getText()).contains("The report source is unavailable"));
		assertThat(browser.findElements(By.cssSelector("#timeline li.unrecorded"))).isEmpty();
		assertThat(text("#payload")).contains("Hidden");
		assertThat(browser.findElement(By.id("last-error")).getAttribute("class")).isEqualTo("error");
		assertThat(factAfter("Created")).matches(".*" + ZONE);
		Browser.screenshot(browser, "3-failed-job");
		click(By.id("retry"));
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "queued again"));
		wait.until(ExpectedConditions.textToBe(By.cssSelector("#job-status"), "SUCCEEDED"));
		assertThat(text("#result")).contains("\"reportId\"");
		// Attempts after the operator's retry are named by it: no second "Attempt 1".
		assertThat(text("#timeline")).contains("Queued again by an operator (operator retry 1)")
			.contains("Operator retry 1, attempt 1 ended: succeeded")
			.contains("Succeeded after 1 attempt of operator retry 1");
		assertThat(text("#timeline").split("Attempt 1 started", -1)).hasSize(2);
		// The error its third attempt left is told as an earlier attempt's, not shown as a failure.
		assertThat(text("#last-error")).contains("The report source is unavailable");
		assertThat(browser.findElement(By.id("last-error")).getAttribute("class")).isEqualTo("earlier-error");
		assertThat(text("#main")).contains("An earlier attempt failed:");
		assertThat(this.jobs.find(flaky).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
		Browser.screenshot(browser, "4-retried-job");
		browser.get("http://localhost:" + this.port + "/sqlqueue/#/jobs?queue=reports");
		wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#jobs tr[data-job-id='" + flaky + "']")));
		WebElement earlier = browser.findElement(By.cssSelector("#jobs tr[data-job-id='" + flaky + "'] td.earlier-error"));
		assertThat(earlier.getText()).startsWith("an earlier attempt failed: ");
		assertThat(browser.findElements(By.cssSelector("#jobs tr[data-job-id='" + flaky + "'] td.error"))).isEmpty();

		// Text from a job is shown as text, never run as HTML.
		browser.get("http://localhost:" + this.port + "/sqlqueue/#/jobs/" + hostile);
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("last-error"), HOSTILE_KIND));
		assertThat(browser.findElements(By.cssSelector("#main img"))).isEmpty();
		assertThat(browser.getTitle()).isEqualTo("sqlqueue");

		// A bundle of reports: a batch whose callback ran once all of them had ended.
		Map<?, ?> bundle = post("/reports/bundles", Map.of("kinds", List.of("signups", "weather")));
		long callback = ((Number) bundle.get("callbackJobId")).longValue();
		long batch = ((Number) bundle.get("batchId")).longValue();
		awaitStatus(callback, JobStatus.SUCCEEDED);
		browser.get("http://localhost:" + this.port + "/sqlqueue/#/jobs/" + callback);
		wait.until(ExpectedConditions.textToBe(By.cssSelector("#job-status"), "SUCCEEDED"));
		assertThat(text("#waiting-for")).isEqualTo("nothing");
		assertThat(text(".batch-line")).isEqualTo("Callback of batch #" + batch
				+ ": 2 of 2 finished (1 succeeded, 1 failed, 0 cancelled)");
		assertThat(text("#on-failure")).startsWith("runs anyway");
		assertThat(text("#workflow-facts")).doesNotContain("is cancelled");
		Browser.screenshot(browser, "5-batch-callback");
		click(By.id("batch-link"));
		wait.until(ExpectedConditions.textToBe(By.id("batch-succeeded"), "1"));
		assertThat(text("#batch-failed")).isEqualTo("1");
		assertThat(text("#batch-pending")).isEqualTo("0");
		assertThat(text("#batch-callback")).isEqualTo("#" + callback);
		assertThat(browser.findElements(By.cssSelector("#batch-progress span"))).hasSize(2);
		assertThat(browser.findElements(By.cssSelector("#batch-jobs tbody tr[data-job-id]"))).hasSize(2);
		Browser.screenshot(browser, "6-batch");
		// "1 failed" leads to the failed job.
		click(By.cssSelector("#batch-failed a"));
		wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#jobs tbody tr[data-job-id]"), 1));
		assertThat(text("#batch-filter")).contains("batch #" + batch);
		click(By.cssSelector("#jobs tbody tr[data-job-id] a"));
		wait.until(ExpectedConditions.textToBe(By.cssSelector("#job-status"), "FAILED"));
		assertThat(text(".batch-line")).startsWith("Member of batch #" + batch);

		// A job that waits for Ada's follow-up mail (due in an hour): WAITING, in the counts and its workflow.
		long followup = ((Number) ada.get("followupJobId")).longValue();
		long waiting = this.jobs.enqueue(Job.of("report.build", new BuildReport(batch)).after(followup));
		browser.get("http://localhost:" + this.port + "/sqlqueue/#/jobs/" + waiting);
		wait.until(ExpectedConditions.textToBe(By.cssSelector("#job-status"), "WAITING"));
		assertThat(text("#waiting-for")).isEqualTo("1 job");
		assertThat(text("#dependencies")).contains("#" + followup).contains("QUEUED");
		assertThat(browser.findElements(By.cssSelector("#workflow-graph > li"))).hasSize(2);
		assertThat(text("#workflow-graph > li:last-child")).contains("#" + waiting).contains("WAITING");
		Browser.screenshot(browser, "7-waiting-job");
		click(By.id("nav-overview"));
		wait.until(ExpectedConditions.textToBe(By.cssSelector("tr[data-queue='reports'] td.count-WAITING"), "1"));
	}

	/** A pause from the overview holds a queue's new job back on the instance; a resume runs it. */
	@Test
	@Order(2)
	void operatorPausesAQueueSeesTheInstancesAndResumesIt() {
		WebDriverWait wait = new WebDriverWait(browser, TIMEOUT);
		browser.get("http://localhost:" + this.port + "/sqlqueue/");
		// The cluster: this application's one instance, live, from its row.
		wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#instances tbody tr[data-instance]"), 1));
		assertThat(text("#instances tbody tr[data-instance]")).contains("(this one)").contains("live").contains("reports");
		click(By.id("pause-queue-reports"));
		wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-queue='reports'] .paused")));
		assertThat(text("#flash")).startsWith("Queue 'reports' is paused");
		long held = ((Number) post("/reports", Map.of("kind", "signups", "failTimes", 0)).get("jobId")).longValue();
		// Ten poll intervals: the instance claims nothing of a paused queue.
		await().pollDelay(Duration.ofMillis(500)).atMost(TIMEOUT).until(() -> true);
		assertThat(this.jobs.find(held).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
		wait.until(ExpectedConditions.presenceOfElementLocated(By.id("resume-queue-reports")));
		Browser.screenshot(browser, "8-paused-queue-and-instances");
		click(By.id("resume-queue-reports"));
		awaitStatus(held, JobStatus.SUCCEEDED);
		wait.until(ExpectedConditions.presenceOfElementLocated(By.id("pause-queue-reports")));
		assertThat(browser.findElements(By.cssSelector("tr[data-queue='reports'] .paused"))).isEmpty();
	}

	/** The audit log shows the operator's actions of the tests before, newest first, and links their job. */
	@Test
	@Order(3)
	void operatorReadsTheAuditLog() {
		WebDriverWait wait = new WebDriverWait(browser, TIMEOUT);
		browser.get("http://localhost:" + this.port + "/sqlqueue/");
		click(By.id("nav-audit"));
		wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#audit tbody tr td")));
		List<String> actions = browser.findElements(By.cssSelector("#audit tbody tr td:nth-child(3)"))
			.stream()
			.map(WebElement::getText)
			.toList();
		assertThat(actions).containsSubsequence("resume-queue", "pause-queue", "retry");
		assertThat(text("#audit tbody tr:first-child")).contains("queue reports").contains("unnamed");
		WebElement retried = browser.findElements(By.cssSelector("#audit tbody tr"))
			.stream()
			.filter((row) -> row.getText().contains("retry"))
			.findFirst()
			.orElseThrow();
		assertThat(retried.findElement(By.cssSelector("a")).getText()).startsWith("#");
		assertThat(text("#main")).contains("Audit log");
		Browser.screenshot(browser, "9-audit-log");
	}

	/**
	 * A search by tag and meta entry finds a campaign's delayed jobs; a bulk cancel shows how
	 * many it will cancel, and cancels those only once confirmed.
	 */
	@Test
	@Order(4)
	void operatorFindsJobsByTagAndCancelsThemAfterSeeingTheirCount() {
		List<Long> campaign = this.jobs.enqueueAll(List.of(
				Job.of("report.build", new BuildReport(1)).delay(Duration.ofHours(1)).tags("campaign-42").meta("tenant", "acme"),
				Job.of("report.build", new BuildReport(2)).delay(Duration.ofHours(1)).tags("campaign-42", "vip").meta("tenant", "acme"),
				Job.of("report.build", new BuildReport(3)).delay(Duration.ofHours(1)).tags("campaign-42").meta("tenant", "acme")));
		long otherTenant = this.jobs.enqueue(
				Job.of("report.build", new BuildReport(4)).delay(Duration.ofHours(1)).tags("campaign-42").meta("tenant", "zeta"));
		WebDriverWait wait = new WebDriverWait(browser, TIMEOUT);
		browser.get("http://localhost:" + this.port + "/sqlqueue/#/jobs");
		WebElement filters = wait.until(ExpectedConditions.presenceOfElementLocated(By.id("filters")));
		filters.findElement(By.name("tags")).sendKeys("campaign-42");
		filters.findElement(By.name("meta")).sendKeys("tenant=acme");
		click(By.id("apply"));
		wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#jobs tbody tr[data-job-id]"), 3));
		assertThat(browser.getCurrentUrl()).endsWith("#/jobs?tags=campaign-42&meta=tenant%3Dacme");
		assertThat(rows()).extracting((row) -> row.getAttribute("data-job-id"))
			.containsExactly(String.valueOf(campaign.get(2)), String.valueOf(campaign.get(1)),
					String.valueOf(campaign.get(0)));
		Browser.screenshot(browser, "10-search-by-tag-and-meta");
		click(By.id("bulk-cancel"));
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("bulk-count"), "This will cancel 3 jobs"));
		assertThat(text("#bulk-go")).isEqualTo("Cancel 3 jobs");
		// Asked, not yet done.
		assertThat(this.jobs.find(campaign.get(0)).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
		Browser.screenshot(browser, "11-bulk-cancel-confirmation");
		click(By.id("bulk-go"));
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "3 of 3 matching jobs"));
		for (long id : campaign) {
			assertThat(this.jobs.find(id).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
		}
		assertThat(this.jobs.find(otherTenant).orElseThrow().status()).isEqualTo(JobStatus.QUEUED);
		wait.until(ExpectedConditions.textToBePresentInElementLocated(
				By.cssSelector("#jobs tr[data-job-id='" + campaign.get(0) + "']"), "CANCELLED"));
		Browser.screenshot(browser, "12-bulk-cancelled");
	}

	/** The value of a fact on the job page. */
	private static String factAfter(String label) {
		return browser.findElement(By.xpath("//dl[@class='facts']/dt[text()='" + label + "']/following-sibling::dd[1]"))
			.getText();
	}

	private List<WebElement> rows() {
		return browser.findElements(By.cssSelector("#jobs tbody tr[data-job-id]"));
	}

	/**
	 * The text of the element, found again when the page replaced it between the find and the
	 * read: the overview redraws itself every refresh interval (1 s here).
	 */
	private static String text(String css) {
		return redrawn(() -> browser.findElement(By.cssSelector(css)).getText());
	}

	/**
	 * Clicks the element, found again when the page replaced it between the find and the
	 * click (the click did not happen then): the overview redraws itself every refresh, and
	 * the pages of a job or a batch that has not finished every two seconds at most.
	 */
	private static void click(By element) {
		redrawn(() -> {
			browser.findElement(element).click();
			return null;
		});
	}

	/**
	 * Reads again when the overview redrew itself (it refreshes every second here) between
	 * finding an element and reading it.
	 */
	private static <T> T redrawn(java.util.function.Supplier<T> read) {
		for (int tries = 1;; tries++) {
			try {
				return read.get();
			}
			catch (StaleElementReferenceException ex) {
				if (tries == 5) {
					throw ex;
				}
			}
		}
	}

	private Map<?, ?> post(String path, Map<String, ?> body) {
		return this.http.post()
			.uri(path)
			.contentType(MediaType.APPLICATION_JSON)
			.body(body)
			.exchange()
			.expectStatus()
			.is2xxSuccessful()
			.expectBody(Map.class)
			.returnResult()
			.getResponseBody();
	}

	private void awaitStatus(long id, JobStatus status) {
		await().atMost(TIMEOUT).until(() -> this.jobs.find(id).orElseThrow().status() == status);
	}

}
