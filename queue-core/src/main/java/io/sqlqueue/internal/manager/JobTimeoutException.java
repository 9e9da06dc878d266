package io.sqlqueue.internal.manager;

import java.time.Duration;

/**
 * An attempt ran longer than its handler's timeout: it was interrupted and counts as failed.
 */
public class JobTimeoutException extends RuntimeException {

	public JobTimeoutException(Duration timeout) {
		super("The handler ran longer than its timeout of " + timeout + " and was interrupted");
	}

}
