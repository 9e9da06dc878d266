package io.sqlqueue.dashboard.browser;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

import io.sqlqueue.Job;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard in a real browser (headless Chromium) with work parked on durable steps
 * (docs/durable-steps.md): a job parked waiting for a signal, one parked on a sleep, and one
 * only delayed. The overview is drawn from what the page carried (no fetch, no "Loading…")
 * and counts the parked jobs apart from the delayed one; the list finds the parked jobs by a
 * filter, marks them PARKED and shows every job's tags; its example values are placeholders
 * that read as such; a parked job's page says what it waits for and until when, in the page's
 * own time format, names no worker, and counts its attempt as its timeline does. The
 * Manager is off, so the jobs stay as parked. Screenshots go to
 * {@code target/dashboard-screenshots/}.
 */
@SpringBootTest(classes = DashboardBrowserIT.App.class, webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
		"spring.datasource.url=jdbc:h2:mem:dashboard-parked-browser;DB_CLOSE_DELAY=-1",
		"sqlqueue.manager.enabled=false",
		// Long, so that a fetch of the overview in the first seconds can only be the first paint's.
		"sqlqueue.dashboard.refresh-interval=60s" })
class DashboardBrowserIT {

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	/** A time as the page writes it: a month's short name and a zone, never ISO-8601. */
	private static final String TIME = "[A-Z][a-z]{2} \\d{1,2}, \\d{4}, \\d{2}:\\d{2}:\\d{2} [AP]?M? ?"
			+ "(UTC|GMT([+-]\\d{1,2}(:\\d{2})?)?|[A-Z]{2,5})";

	private static final String ISO = "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}";

	private static WebDriver browser;

	private static long waiting;

	private static long sleeping;

	private static long delayed;

	@Autowired
	private JobQueue jobs;

	@Autowired
	private JobStore store;

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

	/** The jobs, once, before any page reads the overview (its counts are kept for the refresh interval). */
	@BeforeEach
	void parkSomeWork() {
		if (waiting != 0) {
			return;
		}
		waiting = this.jobs.enqueue(Job.of("report.build", 1).queue("reports").maxAttempts(3).tags("month-end", "acme"));
		for (JobRecord job : claim()) {
			this.store.steps().recordSignalWait(waiting, "approved", Duration.ofHours(1).toMillis());
			assertThat(this.store.park(new Lease(job.id(), job.leaseToken()), "signal", "approved", Duration.ZERO))
				.isTrue();
		}
		sleeping = this.jobs.enqueue(Job.of("report.build", 2).queue("reports"));
		for (JobRecord job : claim()) {
			this.store.steps().recordSleep(sleeping, "1", Duration.ofMinutes(30).toMillis());
			assertThat(this.store.park(new Lease(job.id(), job.leaseToken()), "sleep", "1", Duration.ZERO)).isTrue();
		}
		delayed = this.jobs.enqueue(Job.of("report.build", 3).queue("reports").delay(Duration.ofHours(2)).tags("acme"));
	}

	private List<JobRecord> claim() {
		return this.store.claim(new ClaimRequest("web-7", "reports", List.of("report.build"), 1, 60_000));
	}

	@Test
	void overviewIsDrawnFromThePageAndCountsParkedJobsApartFromDelayedOnes() {
		browser.get(url("/sqlqueue/"));
		WebDriverWait wait = new WebDriverWait(browser, TIMEOUT);
		wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-queue='reports']")));
		// Drawn from the data the page carried: the script fetched no overview for it.
		assertThat(((JavascriptExecutor) browser).executeScript("return performance.getEntriesByType('resource')"
				+ ".filter(function (e) { return e.name.indexOf('api/overview') >= 0; }).length")).isEqualTo(0L);
		assertThat(text("tr[data-queue='reports'] td.count-QUEUED a")).isEqualTo("3");
		assertThat(text("tr[data-queue='reports'] td.count-QUEUED .delayed")).isEqualTo("1 delayed");
		assertThat(text("tr[data-queue='reports'] td.count-QUEUED .parked")).isEqualTo("2 parked");
		assertThat(browser.findElements(By.cssSelector("tr[data-queue='reports'] td.count-QUEUED .backoff"))).isEmpty();
		assertThat(text("#table-health")).contains("Table health");
		assertThat(text("#main")).doesNotContain("Loading");
		Browser.screenshot(browser, "parked-1-overview");
		browser.findElement(By.cssSelector("tr[data-queue='reports'] td.count-QUEUED .parked a")).click();
		wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#jobs tbody tr[data-job-id]"), 2));
		assertThat(browser.getCurrentUrl()).endsWith("#/jobs?queue=reports&parked=true");
		assertThat(ids()).containsExactly(String.valueOf(sleeping), String.valueOf(waiting));
	}

	@Test
	void jobListFindsParkedJobsMarksThemAndShowsTags() {
		browser.get(url("/sqlqueue/#/jobs"));
		WebDriverWait wait = new WebDriverWait(browser, TIMEOUT);
		wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#jobs tbody tr[data-job-id]"), 3));
		assertThat(text(row(waiting) + " .badge")).isEqualTo("PARKED");
		assertThat(text(row(sleeping) + " .badge")).isEqualTo("PARKED");
		assertThat(text(row(delayed) + " .badge")).isEqualTo("QUEUED");
		// The run that parked is attempt 1, as on the job's page (the row counts 0: a park spends none).
		assertThat(text(row(waiting) + " td.attempts")).isEqualTo("1 / 3");
		assertThat(text(row(delayed) + " td.attempts")).isEqualTo("0 / 10");
		List<String> head = browser.findElements(By.cssSelector("#jobs thead th")).stream().map(WebElement::getText).toList();
		assertThat(head).contains("Tags");
		assertThat(browser.findElements(By.cssSelector(row(waiting) + " td.tags .tag")).stream()
			.map(WebElement::getText)
			.toList()).containsExactly("acme", "month-end");
		assertThat(text(row(sleeping) + " td.tags")).isEmpty();

		// Its example values are placeholders, muted and in italics, not values set.
		WebElement from = browser.findElement(By.cssSelector("#filters input[name='createdFrom']"));
		assertThat(from.getAttribute("value")).isEmpty();
		assertThat(from.getAttribute("placeholder")).startsWith("e.g. ");
		String typed = css(from, null, "color");
		assertThat(css(from, "::placeholder", "color")).isNotEqualTo(typed);
		assertThat(css(from, "::placeholder", "font-style")).isEqualTo("italic");
		assertThat(css(from, null, "font-style")).isEqualTo("normal");
		Browser.screenshot(browser, "parked-2-list");

		new Select(browser.findElement(By.cssSelector("#filters select[name='status']"))).selectByValue("PARKED");
		browser.findElement(By.id("apply")).click();
		wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#jobs tbody tr[data-job-id]"), 2));
		assertThat(browser.getCurrentUrl()).endsWith("#/jobs?parked=true");
		assertThat(ids()).containsExactly(String.valueOf(sleeping), String.valueOf(waiting));
		assertThat(new Select(browser.findElement(By.cssSelector("#filters select[name='status']")))
			.getFirstSelectedOption()
			.getText()).isEqualTo("PARKED");
		Browser.screenshot(browser, "parked-3-filtered");
	}

	@Test
	void parkedJobsPageSaysWhatItWaitsForInThePagesTimesWithNoWorker() {
		browser.get(url("/sqlqueue/#/jobs/" + waiting));
		WebDriverWait wait = new WebDriverWait(browser, TIMEOUT);
		wait.until(ExpectedConditions.textToBe(By.cssSelector("#job-status"), "PARKED"));
		assertThat(text("#parked")).matches("Parked: waiting for signal 'approved' until " + TIME
				+ "\\. It holds no worker; it is due again then, or as soon as the signal comes\\.");
		// A park spends no attempt: the run that parked is attempt 1, on the page as in the timeline.
		assertThat(text("#attempts")).isEqualTo("1 of 3 (parked: a park spends no attempt)");
		assertThat(text("#timeline")).contains("Attempt 1 started on web-7");
		assertThat(browser.findElements(By.cssSelector("#timeline li.parked"))).singleElement()
			.satisfies((parked) -> assertThat(parked.getText())
				.matches("(?s).*Attempt 1 parked: waiting for signal 'approved' until " + TIME));
		// The worker of the run that parked is in the timeline; the job itself holds none.
		assertThat(browser.findElements(By.xpath("//dl[@class='facts']/dt[text()='Worker']"))).isEmpty();
		assertThat(browser.findElements(By.xpath("//dl[@class='facts']/dt[text()='Lease until']"))).isEmpty();
		assertThat(text("#main")).doesNotContainPattern(ISO);
		Browser.screenshot(browser, "parked-4-waiting-job");

		browser.get(url("/sqlqueue/#/jobs/" + sleeping));
		wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("parked"), "sleeping"));
		assertThat(text("#parked")).matches("Parked: sleeping until " + TIME + "\\. It holds no worker; it is due "
				+ "again then\\.");
		assertThat(text("#job-status")).isEqualTo("PARKED");
		assertThat(text("#main")).doesNotContainPattern(ISO);
	}

	private static List<String> ids() {
		return browser.findElements(By.cssSelector("#jobs tbody tr[data-job-id]"))
			.stream()
			.map((row) -> row.getAttribute("data-job-id"))
			.toList();
	}

	private static String row(long id) {
		return "#jobs tr[data-job-id='" + id + "']";
	}

	private static String text(String css) {
		return browser.findElement(By.cssSelector(css)).getText();
	}

	/** A property of the element's computed style, or of its pseudo-element's. */
	private static String css(WebElement element, String pseudo, String property) {
		return (String) ((JavascriptExecutor) browser).executeScript(
				"return getComputedStyle(arguments[0], arguments[1]).getPropertyValue(arguments[2])", element, pseudo,
				property);
	}

	private String url(String path) {
		return "http://localhost:" + this.port + path;
	}

	/** The queue, the dashboard and Spring Security that lets every request through (the page is what is tested). */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		SecurityFilterChain openToTheTest(HttpSecurity http) throws Exception {
			return http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll()).build();
		}

	}

}
