package io.sqlqueue;

/**
 * A job was rejected at enqueue because it can never be stored or run as given: an
 * invalid queue or handler name, a payload that cannot be encoded or is larger than
 * the configured limit. Nothing was written.
 */
public class InvalidJobException extends IllegalArgumentException {

	public InvalidJobException(String message) {
		super(message);
	}

	public InvalidJobException(String message, Throwable cause) {
		super(message, cause);
	}

}
