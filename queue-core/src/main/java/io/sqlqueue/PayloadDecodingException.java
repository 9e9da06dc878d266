package io.sqlqueue;

/**
 * A job's payload cannot be decoded into what its handler takes. Fails the job at once:
 * no attempt will ever decode it.
 */
public class PayloadDecodingException extends NonRetryableException {

	public PayloadDecodingException(String message, Throwable cause) {
		super(message, cause);
	}

}
