package io.sqlqueue.handler;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.JobContext;
import io.sqlqueue.PayloadDecodingException;

/**
 * Runs one attempt of a job: decodes the payload, calls the handler, returns its result.
 */
@FunctionalInterface
public interface JobInvoker {

	/**
	 * @throws PayloadDecodingException when the payload cannot be decoded for the handler
	 * @throws Exception whatever the handler throws
	 */
	@Nullable Object invoke(String payload, JobContext context) throws Exception;

}
