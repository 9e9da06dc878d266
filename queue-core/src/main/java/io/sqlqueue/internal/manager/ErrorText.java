package io.sqlqueue.internal.manager;

/**
 * Text for {@code last_error} that every database stores: NUL characters (which PostgreSQL
 * refuses in text) become U+FFFD, and the text is cut to 4000 characters, so a gigantic
 * message or stack cannot make the write that records a failure fail too.
 */
final class ErrorText {

	static final int MAX_LENGTH = 4000;

	private ErrorText() {
	}

	static String of(String text) {
		return cut(text, MAX_LENGTH).replace('\u0000', '\uFFFD');
	}

	/** At most {@code length} characters, never half of a surrogate pair (stored as '?' otherwise). */
	private static String cut(String text, int length) {
		if (text.length() <= length) {
			return text;
		}
		int end = Character.isHighSurrogate(text.charAt(length - 1)) ? length - 1 : length;
		return text.substring(0, end);
	}

	/** Class, message and a short stack: enough to act on, small enough to store. */
	static String describe(Throwable failure) {
		StringBuilder text = new StringBuilder(cut(failure.toString()));
		StackTraceElement[] frames = failure.getStackTrace();
		for (int i = 0; i < Math.min(frames.length, 8); i++) {
			text.append("\n\tat ").append(frames[i]);
		}
		Throwable cause = failure.getCause();
		if (cause != null && cause != failure) {
			text.append("\nCaused by: ").append(cut(cause.toString()));
		}
		return of(text.toString());
	}

	/** A message is cut before the stack is added, so the stack survives a gigantic message. */
	private static String cut(String text) {
		return (text.length() <= MAX_LENGTH / 2) ? text : cut(text, MAX_LENGTH / 2) + "…";
	}

}
