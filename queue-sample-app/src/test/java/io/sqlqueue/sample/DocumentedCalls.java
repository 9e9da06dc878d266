package io.sqlqueue.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.jayway.jsonpath.JsonPath;
import com.jayway.jsonpath.PathNotFoundException;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * Runs the curl commands of a page (or of pages that go on from each other) against a fresh
 * sample application, in page order,
 * each with its {@link Step}, and holds every answer to what the page shows:
 * <ul>
 * <li>the status: {@code HTTP/1.1 409} where the page writes one, else 2xx;</li>
 * <li>the headers the page lists below such a status line;</li>
 * <li>each {@code "key":value} the page writes as compact JSON (no space after the colon;
 * {@code "key": value} is request-like text and not checked) appears in an answer of the
 * step. A string cut with {@code ...} counts as a prefix; strings with a date or a UUID vary
 * and are skipped.</li>
 * </ul>
 * The page's commands and the steps must match one to one, in order, so a command added
 * later without a step fails, and so does a step whose command changed.
 */
final class DocumentedCalls {

	private static final Pattern STATUS = Pattern.compile("HTTP/1\\.1 (\\d{3})");

	private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.1 \\d{3}\\s*");

	private static final Pattern HEADER = Pattern.compile("([A-Za-z][A-Za-z-]*): (.+)");

	private static final Pattern FRAGMENT = Pattern
		.compile("\"([A-Za-z_][A-Za-z0-9_]*)\":(\"(?:[^\"\\\\]|\\\\.)*\"|-?\\d+(?:\\.\\d+)?|true|false|null)");

	private static final Pattern VARIES = Pattern.compile("\\d{4}-\\d{2}-\\d{2}|[0-9a-f]{8}-[0-9a-f]{4}-");

	private DocumentedCalls() {
	}

	/**
	 * A page's curl command and its check.
	 * @param command the command as the page writes it (white space does not matter)
	 * @param mayDiffer fragments of the page's answer an answer may show otherwise; the
	 * check says why and what it accepts instead
	 */
	static Step step(String command, Check check, String... mayDiffer) {
		return new Step(DocumentedCurl.normalize(command), check, Set.of(mayDiffer));
	}

	/**
	 * A file of this repository, found from the working directory (the module's, under
	 * Maven; the repository's, in some IDEs).
	 */
	static Path repositoryFile(String path) {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			if (Files.isRegularFile(dir.resolve("queue-sample-app/USAGE.md"))) {
				return dir.resolve(path);
			}
		}
		throw new IllegalStateException("Not inside the sqlqueue repository: " + Path.of("").toAbsolutePath());
	}

	/**
	 * The pages of this repository's documentation: {@code README.md},
	 * {@code queue-sample-app/USAGE.md} and {@code docs/*.md}, in that order.
	 */
	static List<Path> documentedPages() throws IOException {
		List<Path> pages = new ArrayList<>();
		pages.add(repositoryFile("README.md"));
		pages.add(repositoryFile("queue-sample-app/USAGE.md"));
		try (Stream<Path> docs = Files.list(repositoryFile("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		return pages;
	}

	/** Runs the page's curl commands with these steps, in order, on a fresh application. */
	static void run(Path page, List<Step> steps) throws IOException {
		run(List.of(page), steps);
	}

	/**
	 * Runs the curl commands of these pages with these steps, in order, on one fresh
	 * application: a page that goes on from another (its ids are those the first one's calls
	 * made) follows it in the list.
	 */
	static void run(List<Path> pages, List<Step> steps) throws IOException {
		List<DocumentedCurl> curls = new ArrayList<>();
		for (Path page : pages) {
			curls.addAll(DocumentedCurl.read(page));
		}
		List<String> documented = curls.stream().map((curl) -> DocumentedCurl.normalize(curl.command())).toList();
		List<String> checked = steps.stream().map(Step::command).toList();
		if (!documented.equals(checked)) {
			fail("The curl commands of %s and the steps of its test differ: each documented call needs a step, "
					+ "in page order.%nThe pages:%n%s%nThe steps:%n%s",
					pages.stream().map(Path::getFileName).map(Path::toString).collect(Collectors.joining(", ")),
					curls.stream().map((curl) -> curl.where() + "  " + curl.command()).collect(Collectors.joining("\n")),
					String.join("\n", checked));
		}
		curls.forEach(DocumentedCurl::request);
		String database = "documented-calls-" + UUID.randomUUID();
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			// The pages show an application whose Manager runs jobs; the test kit is on this class path.
			.run("--server.port=0", "--spring.datasource.url=jdbc:h2:mem:" + database,
					"--sqlqueue.test.run-in-background=true")) {
			App app = new App(context.getEnvironment().getRequiredProperty("local.server.port", Integer.class), context);
			List<Runnable> later = new ArrayList<>();
			for (int i = 0; i < steps.size(); i++) {
				DocumentedCurl curl = curls.get(i);
				Call call = new Call(app, curl, later);
				try {
					steps.get(i).check().check(call);
					assertAsDocumented(call, steps.get(i).mayDiffer());
				}
				catch (Exception | AssertionError ex) {
					throw new AssertionError(curl.where() + ": " + curl.command() + "\npromises: " + curl.promise()
							+ "\nlast answer: " + call.lastAnswer() + "\n" + ex.getMessage(), ex);
				}
			}
			later.forEach(Runnable::run);
		}
	}

	private static void assertAsDocumented(Call call, Set<String> mayDiffer) {
		assertThat(call.answers()).as("answers").isNotEmpty();
		String promise = call.curl().promise();
		Matcher status = STATUS.matcher(promise);
		boolean statusShown = status.find();
		for (Answer answer : call.answers()) {
			if (statusShown) {
				assertThat(answer.status()).as("status").isEqualTo(Integer.parseInt(status.group(1)));
			}
			else {
				assertThat(answer.status()).as("status").isBetween(200, 299);
			}
		}
		List<String> lines = promise.lines().toList();
		for (int i = 0; i < lines.size(); i++) {
			if (!STATUS_LINE.matcher(lines.get(i)).matches()) {
				continue;
			}
			for (int j = i + 1; j < lines.size() && HEADER.matcher(lines.get(j)).matches(); j++) {
				Matcher header = HEADER.matcher(lines.get(j));
				header.matches();
				assertThat(call.answers()).as("header " + lines.get(j))
					.allMatch((answer) -> header.group(2).equals(answer.header(header.group(1))));
			}
		}
		Matcher fragment = FRAGMENT.matcher(promise);
		while (fragment.find()) {
			String value = fragment.group(2);
			boolean string = value.startsWith("\"");
			if (mayDiffer.contains(fragment.group()) || (string && !value.contains("...") && VARIES.matcher(value).find())) {
				continue;
			}
			Pattern expected = string && value.contains("...")
					? Pattern.compile(Pattern.quote("\"" + fragment.group(1) + "\":" + value.substring(0, value.indexOf("..."))))
					: Pattern.compile(Pattern.quote(fragment.group()) + (string ? "" : "(?![0-9.])"));
			assertThat(call.answers()).as("an answer with " + fragment.group())
				.anyMatch((answer) -> expected.matcher(answer.body()).find());
		}
	}

	/** A page's curl command and its check. */
	record Step(String command, Check check, Set<String> mayDiffer) {
	}

	/** What a step checks: it sends the call (once, or until an answer passes) and asserts on what came back. */
	@FunctionalInterface
	interface Check {

		void check(Call call) throws Exception;

	}

	@FunctionalInterface
	interface AnswerCheck {

		void check(Answer answer) throws Exception;

	}

	/** A documented call being checked: sends its request, again to wait for a state, and keeps the answers. */
	static final class Call {

		private final App app;

		private final DocumentedCurl curl;

		private final List<Runnable> later;

		private final List<Answer> answers = new ArrayList<>();

		Call(App app, DocumentedCurl curl, List<Runnable> later) {
			this.app = app;
			this.curl = curl;
			this.later = later;
		}

		/** The application, for what the page implies but does not call (e.g. waiting for a job). */
		App app() {
			return this.app;
		}

		DocumentedCurl curl() {
			return this.curl;
		}

		List<Answer> answers() {
			return this.answers;
		}

		Answer send() {
			Answer answer = this.app.send(this.curl.request());
			this.answers.add(answer);
			return answer;
		}

		/** Sends the (reading) request until its answer passes the check; returns that answer. */
		Answer until(Duration atMost, AnswerCheck check) {
			if (!this.curl.request().method().equals("GET")) {
				throw new IllegalStateException("Only a GET may be sent again: " + this.curl.command());
			}
			AtomicReference<Answer> last = new AtomicReference<>();
			await().atMost(atMost).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
				last.set(send());
				check.check(last.get());
			});
			return last.get();
		}

		/** A check of what the page says happens later, run after the page's last call. */
		void later(Runnable check) {
			this.later.add(() -> {
				try {
					check.run();
				}
				catch (AssertionError | RuntimeException ex) {
					throw new AssertionError(this.curl.where() + ": " + this.curl.command() + "\npromises later: "
							+ this.curl.promise() + "\n" + ex.getMessage(), ex);
				}
			});
		}

		@Nullable Answer lastAnswer() {
			return this.answers.isEmpty() ? null : this.answers.get(this.answers.size() - 1);
		}

	}

	/** The running application, over HTTP. */
	static final class App {

		private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

		private final int port;

		private final ApplicationContext context;

		App(int port, ApplicationContext context) {
			this.port = port;
			this.context = context;
		}

		/** A bean of the application, for what a page says about its own tables (e.g. a charge made once). */
		<T> T bean(Class<T> type) {
			return this.context.getBean(type);
		}

		Answer send(DocumentedCurl.Request request) {
			HttpRequest.Builder builder = HttpRequest
				.newBuilder(URI.create("http://localhost:" + this.port + request.path()))
				.timeout(Duration.ofSeconds(10))
				.method(request.method(),
						(request.body() != null) ? BodyPublishers.ofString(request.body()) : BodyPublishers.noBody());
			request.headers().forEach(builder::header);
			try {
				HttpResponse<String> response = this.http.send(builder.build(), BodyHandlers.ofString());
				String body = response.body();
				Pattern grep = request.grep();
				if (grep != null) {
					body = body.lines().filter((line) -> grep.matcher(line).find()).collect(Collectors.joining("\n"));
				}
				return new Answer(response.statusCode(), response.headers().map(), body);
			}
			catch (IOException ex) {
				throw new IllegalStateException(request.method() + " " + request.path() + " failed", ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

		Answer get(String path) {
			return send(new DocumentedCurl.Request("GET", path, Map.of(), null, null));
		}

		/** {@code GET /jobs/{id}} of a job that exists. */
		Answer job(long id) {
			Answer job = get("/jobs/" + id);
			assertThat(job.status()).as("GET /jobs/%d", id).isEqualTo(200);
			return job;
		}

		Answer awaitJob(long id, String status, Duration atMost) {
			AtomicReference<Answer> last = new AtomicReference<>();
			await().atMost(atMost).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
				last.set(job(id));
				assertThat(last.get().json("$.status")).as("status of job %d", id).isEqualTo(status);
			});
			return last.get();
		}

	}

	/** An answer: its status, headers and body (after a {@code | grep}, the lines it kept). */
	record Answer(int status, Map<String, List<String>> headers, String body) {

		@Nullable String header(String name) {
			return this.headers.entrySet()
				.stream()
				.filter((header) -> header.getKey().equalsIgnoreCase(name))
				.map((header) -> header.getValue().get(0))
				.findFirst()
				.orElse(null);
		}

		/** The value at a JSON path: a String, Integer, Boolean, List, Map, or null. */
		@Nullable Object json(String path) {
			return JsonPath.read(this.body, path);
		}

		boolean has(String path) {
			try {
				JsonPath.read(this.body, path);
				return true;
			}
			catch (PathNotFoundException ex) {
				return false;
			}
		}

		Instant instant(String path) {
			return Instant.parse((String) json(path));
		}

		@Override
		public String toString() {
			return this.status + " " + ((this.body.length() > 2000) ? this.body.substring(0, 2000) + "..." : this.body);
		}

	}

}
