package io.sqlqueue.dashboard.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.core.io.ClassPathResource;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import org.springframework.web.util.HtmlUtils;

/**
 * The dashboard's one HTML page: a shell that loads its script and style (plain files in
 * the jar, no build step) and hands them what only the server knows, in {@code meta} tags,
 * HTML-escaped: whether actions are on, how often to refresh, and Spring Security's CSRF
 * header and token where there is one. Everything else the script fetches from the JSON
 * API and writes as text, never as HTML.
 */
final class DashboardPage {

	static final String LOCATION = "META-INF/sqlqueue-dashboard/";

	private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([A-Za-z]+)}}");

	private final String template;

	private final DashboardAccess access;

	private final long refreshMillis;

	private final int pageSize;

	DashboardPage(DashboardAccess access, long refreshMillis, int pageSize) {
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
		return Responses.html(html);
	}

	private static String escape(String text) {
		return HtmlUtils.htmlEscape(text, StandardCharsets.UTF_8.name());
	}

}
