package io.sqlqueue.dashboard.web;

import java.net.URI;

import org.springframework.http.CacheControl;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Every response of the dashboard carries the same protective headers: nothing runs but
 * its own files (a Content-Security-Policy without inline scripts or styles), it is never
 * framed (so no one can trick a click on an action), never sniffed, and never cached.
 */
final class Responses {

	static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
			+ "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

	private Responses() {
	}

	static void protect(HttpHeaders headers) {
		headers.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
		headers.set("X-Content-Type-Options", "nosniff");
		headers.set("X-Frame-Options", "DENY");
		headers.set("Referrer-Policy", "same-origin");
		headers.setCacheControl(CacheControl.noStore());
	}

	static ServerResponse json(Object body) {
		return ServerResponse.ok().headers(Responses::protect).contentType(MediaType.APPLICATION_JSON).body(body);
	}

	static ServerResponse html(String body) {
		return ServerResponse.ok()
			.headers(Responses::protect)
			.contentType(new MediaType(MediaType.TEXT_HTML, java.nio.charset.StandardCharsets.UTF_8))
			.body(body);
	}

	static ServerResponse problem(HttpStatusCode status, String detail) {
		return ServerResponse.status(status)
			.headers(Responses::protect)
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.body(ProblemDetail.forStatusAndDetail(status, detail));
	}

	static ServerResponse redirect(String location) {
		return ServerResponse.status(302).headers(Responses::protect).location(URI.create(location)).build();
	}

}
