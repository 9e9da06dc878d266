package io.sqlqueue.dashboard.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ClassPathResource;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import org.springframework.web.util.HtmlUtils;

/**
 * The dashboard's one HTML page: a shell that loads its script and style (plain files in
 * the jar, no build step) and hands them what only the server knows, in {@code meta} tags,
 * HTML-escaped: whether actions are on, how often to refresh, and Spring Security's CSRF
 * header and token where there is one. It carries the overview and the tables' health as
 * they are now, as the API answers them, in a JSON data block (never run; a
 * {@code <} in a value is written {@code \u003c}), so that the page draws the overview at
 * once, not "Loading…" until a first fetch; where reads are refused or the read fails, it
 * carries none and the script fetches. Everything else the script fetches from the JSON API
 * and writes as text, never as HTML.
 */
final class DashboardPage {

	static final String LOCATION = "META-INF/sqlqueue-dashboard/";

	private static final Logger LOGGER = LoggerFactory.getLogger(DashboardPage.class);

	private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([A-Za-z]+)}}");

	private final String template;

	private final DashboardAccess access;

	private final long refreshMillis;

	private final int pageSize;

	private final Supplier<Object> firstPaint;

	private final JsonMapper json;

	/**
	 * @param firstPaint what the page carries to draw first: the overview and the tables'
	 * health, as {@code api/overview} and {@code api/tables} answer them
	 * @param json writes it as the API would
	 */
	DashboardPage(DashboardAccess access, long refreshMillis, int pageSize, Supplier<Object> firstPaint,
			JsonMapper json) {
		this.firstPaint = firstPaint;
		this.json = json;
		this.access = access;
		this.refreshMillis = refreshMillis;
		this.pageSize = pageSize;
		try (InputStream in = new ClassPathResource(LOCATION + "index.html").getInputStream()) {
			this.template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("The dashboard's page is missing from the jar", ex);
		}
	}

	ServerResponse render(ServerRequest request) {
		String[] csrf = SecurityCsrf.of(request);
		Map<String, String> values = Map.of("actions", String.valueOf(this.access.actionsEnabled()), "actionsOff",
				(this.access.actionRefusal() != null) ? this.access.actionRefusal() : "", "refreshMillis",
				String.valueOf(this.refreshMillis), "pageSize", String.valueOf(this.pageSize), "csrfHeader",
				(csrf != null) ? csrf[0] : "", "csrfToken", (csrf != null) ? csrf[1] : "");
		// One pass, so that no value is read as a placeholder.
		String html = PLACEHOLDER.matcher(this.template)
			.replaceAll((match) -> Matcher.quoteReplacement(escape(values.getOrDefault(match.group(1), ""))));
		String first = firstPaint();
		html = html.replace(MAIN, (first != null) ? "<main id=\"main\"></main>\n<script type=\"application/json\" "
				+ "id=\"sqlqueue-first-paint\">" + first + "</script>" : MAIN);
		return Responses.html(html);
	}

	/** The template's main part, as it is before the script draws: replaced where the page carries data. */
	static final String MAIN = "<main id=\"main\"><p class=\"muted\">Loading…</p></main>";

	/**
	 * The first paint's data as JSON that cannot end its data block, or {@code null} where reads
	 * are refused or fail (a replica down: the script's fetch then says so, as on any refresh).
	 */
	private @Nullable String firstPaint() {
		if (this.access.readRefusal() != null) {
			return null;
		}
		try {
			// JSON has a '<' only inside strings, where \u003c reads the same.
			return this.json.writeValueAsString(this.firstPaint.get()).replace("<", "\\u003c");
		}
		catch (RuntimeException ex) {
			LOGGER.debug("The page carries no overview; the script fetches it", ex);
			return null;
		}
	}

	private static String escape(String text) {
		return HtmlUtils.htmlEscape(text, StandardCharsets.UTF_8.name());
	}

}
