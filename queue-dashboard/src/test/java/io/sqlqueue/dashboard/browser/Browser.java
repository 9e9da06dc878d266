package io.sqlqueue.dashboard.browser;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Chromium for tests, from the operating system's packages (Debian's
 * {@code chromium} and {@code chromium-driver}), started without Selenium Manager (which
 * would download a browser): paths from {@code SQLQUEUE_TEST_CHROMIUM} and
 * {@code SQLQUEUE_TEST_CHROMEDRIVER}, else {@code /usr/bin/chromium} and
 * {@code /usr/bin/chromedriver}. Where they are missing the test is skipped with a message
 * saying how to install them, unless {@code SQLQUEUE_TEST_REQUIRE_BROWSER} is set (CI sets
 * it): then it fails. (The same as the sample application's: test sources are not shared
 * between modules.)
 */
final class Browser {

	static final Path SCREENSHOTS = Path.of("target", "dashboard-screenshots");

	private Browser() {
	}

	/** Skips (or, where required, fails) the test when the browser or its driver is missing. */
	static void assumeInstalled() {
		Path chromium = chromium();
		Path driver = driver();
		if (Files.isExecutable(chromium) && Files.isExecutable(driver)) {
			return;
		}
		String message = "Headless browser tests need Chromium and its driver at " + chromium + " and " + driver
				+ " (Debian: apt-get install -y chromium chromium-driver; or point SQLQUEUE_TEST_CHROMIUM and "
				+ "SQLQUEUE_TEST_CHROMEDRIVER at them)";
		String required = System.getenv("SQLQUEUE_TEST_REQUIRE_BROWSER");
		if (required != null && !required.isBlank()) {
			Assertions.fail(message + ". SQLQUEUE_TEST_REQUIRE_BROWSER requires them.");
		}
		Assumptions.abort(message);
	}

	static WebDriver start() {
		Path profile;
		try {
			profile = Files.createTempDirectory("sqlqueue-chromium-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		ChromeOptions options = new ChromeOptions();
		options.setBinary(chromium().toFile());
		// Flags that keep Chromium from reaching out to the network (none here) and stalling.
		options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--disable-background-networking", "--disable-quic", "--no-first-run", "--disable-component-update",
				"--disable-sync", "--disable-extensions", "--disable-default-apps", "--lang=en-US",
				"--window-size=1360,1000", "--user-data-dir=" + profile);
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver().toFile())
			.usingAnyFreePort()
			.withTimeout(Duration.ofSeconds(30))
			.build();
		return new ChromeDriver(service, options);
	}

	/** Saves what the browser shows as {@code target/dashboard-screenshots/{name}.png}. */
	static Path screenshot(WebDriver browser, String name) {
		try {
			Files.createDirectories(SCREENSHOTS);
			Path file = SCREENSHOTS.resolve(name + ".png");
			Files.copy(((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath(), file,
					StandardCopyOption.REPLACE_EXISTING);
			return file;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static Path chromium() {
		return Path.of(System.getenv().getOrDefault("SQLQUEUE_TEST_CHROMIUM", "/usr/bin/chromium"));
	}

	private static Path driver() {
		return Path.of(System.getenv().getOrDefault("SQLQUEUE_TEST_CHROMEDRIVER", "/usr/bin/chromedriver"));
	}

}
