package io.sqlqueue;

/**
 * A job's payload cannot be decoded into what its handler takes, or the payload of a signal
 * into the type the job awaits it as. Fails the job at once: no attempt will ever decode it.
 */
public class PayloadDecodingException extends NonRetryableException {

	public PayloadDecodingException(String message, Throwable cause) {
		super(message, cause);
	}

}
