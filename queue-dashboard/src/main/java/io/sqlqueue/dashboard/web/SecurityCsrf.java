package io.sqlqueue.dashboard.web;

import org.jspecify.annotations.Nullable;

import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.function.ServerRequest;

/**
 * Spring Security's CSRF token for this request, for the page to send back with its
 * actions; none where Spring Security is absent or the application switched CSRF off.
 */
final class SecurityCsrf {

	private static final boolean PRESENT = ClassUtils.isPresent("org.springframework.security.web.csrf.CsrfToken",
			SecurityCsrf.class.getClassLoader());

	private SecurityCsrf() {
	}

	/** The header name and token, or {@code null}. */
	static String @Nullable [] of(ServerRequest request) {
		return PRESENT ? Token.of(request) : null;
	}

	/** Loaded only where Spring Security is. */
	private static final class Token {

		static String @Nullable [] of(ServerRequest request) {
			Object token = request.servletRequest().getAttribute(CsrfToken.class.getName());
			if (token instanceof CsrfToken csrf) {
				return new String[] { csrf.getHeaderName(), csrf.getToken() };
			}
			return null;
		}

	}

}
