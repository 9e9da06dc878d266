package io.sqlqueue.dashboard.browser;

import java.time.Duration;
import java.util.List;

import jakarta.servlet.Filter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;

import io.sqlqueue.Job;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.JobStep;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The way out of a replay mismatch on the page (docs/durable-steps.md#the-operators-way-out),
 * in a real browser (headless Chromium), actions on, for a signed-in operator: a failed
 * durable job's record rows each offer "Retry from here", which asks first and, confirmed,
 * queues the job again without the records from there on; a failed job without records
 * offers none. The Manager is off, so the jobs stay as the test leaves them. Screenshots go
 * to {@code target/dashboard-screenshots/}.
 */
@SpringBootTest(classes = DashboardRetryFromBrowserIT.App.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.datasource.url=jdbc:h2:mem:dashboard-retry-from-browser;DB_CLOSE_DELAY=-1",
				"sqlqueue.manager.enabled=false", "sqlqueue.dashboard.actions-enabled=true" })
class DashboardRetryFromBrowserIT {

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private static WebDriver browser;

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

	@Test
	void aFailedDurableJobsRecordsEachOfferARetryFromThereThatAsksFirst() {
		long durable = this.jobs.enqueue(Job.of("order.fulfil", 1).queue("orders"));
		this.store.steps().recordStep(durable, "charge", "\"psp-1\"");
		this.store.steps().recordStep(durable, "ship", "1");
		this.store.steps().recordStep(durable, "mail", "2");
		fail("order.fulfil");
		long plain = this.jobs.enqueue(Job.of("report.build", 1).queue("orders"));
		fail("report.build");

		WebDriverWait wait = new WebDriverWait(browser, TIMEOUT);
		browser.get(url("/sqlqueue/#/jobs/" + plain));
		wait.until(ExpectedConditions.textToBe(By.cssSelector("#job-status"), "FAILED"));
		assertThat(browser.findElements(By.id("retry"))).hasSize(1);
		assertThat(browser.findElements(By.cssSelector("button.retry-from"))).isEmpty();

		browser.get(url("/sqlqueue/#/jobs/" + durable));
		wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#steps button.retry-from"), 3));
		List<WebElement> buttons = browser.findElements(By.cssSelector("#steps button.retry-from"));
		assertThat(buttons).extracting(WebElement::getText).containsOnly("Retry from here");
		assertThat(buttons).extracting((button) -> button.getAttribute("data-record")).containsExactly("1", "2", "3");
		assertThat(browser.findElement(By.id("retry-from-confirm")).isDisplayed()).isFalse();

		buttons.get(1).click();
		wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("retry-from-confirm")));
		assertThat(browser.findElement(By.id("retry-from-text")).getText()).isEqualTo("This deletes records 2 to 3 "
				+ "and queues the job again: its next run replays record 1 and runs on from there, running the "
				+ "bodies of the deleted steps again.");
		Browser.screenshot(browser, "retry-from-1-confirm");
		browser.findElement(By.id("retry-from-keep")).click();
		wait.until(ExpectedConditions.invisibilityOfElementLocated(By.id("retry-from-confirm")));
		assertThat(this.jobs.steps(durable)).hasSize(3);

		browser.findElement(By.cssSelector("#steps button.retry-from[data-record='2']")).click();
		wait.until(ExpectedConditions.elementToBeClickable(By.id("retry-from-go"))).click();
		wait.until(ExpectedConditions.textToBe(By.cssSelector("#job-status"), "QUEUED"));
		assertThat(browser.findElement(By.id("flash")).getText()).startsWith("Job " + durable + " is queued again");
		assertThat(browser.findElements(By.cssSelector("button.retry-from"))).isEmpty();
		assertThat(this.jobs.find(durable)).map(JobRecord::status).hasValue(JobStatus.QUEUED);
		assertThat(this.jobs.steps(durable)).extracting(JobStep::name).containsExactly("charge");
		Browser.screenshot(browser, "retry-from-2-queued");
	}

	private void fail(String handler) {
		for (JobRecord job : this.store.claim(new ClaimRequest("web-7", "orders", List.of(handler), 1, 60_000))) {
			this.store.fail(new Lease(job.id(), job.leaseToken()), "Replay mismatch");
		}
	}

	private String url(String path) {
		return "http://localhost:" + this.port + path;
	}

	/**
	 * The queue, the dashboard, and Spring Security that takes every request as the signed-in
	 * operator {@code ops} (the page is what is tested, not a login), with its CSRF protection on.
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		SecurityFilterChain signedInAsOps(HttpSecurity http) throws Exception {
			Filter ops = (request, response, chain) -> {
				SecurityContextHolder.getContext()
					.setAuthentication(UsernamePasswordAuthenticationToken.authenticated("ops", null, List.of()));
				chain.doFilter(request, response);
			};
			return http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll())
				.addFilterBefore(ops, AnonymousAuthenticationFilter.class)
				.build();
		}

	}

}
