package io.sqlqueue;

/**
 * Thrown by a handler (or the cause of what it throws) to fail its job at once,
 * without the remaining attempts: for errors that no retry can fix.
 */
public class NonRetryableException extends RuntimeException {

	public NonRetryableException(String message) {
		super(message);
	}

	public NonRetryableException(String message, Throwable cause) {
		super(message, cause);
	}

}
