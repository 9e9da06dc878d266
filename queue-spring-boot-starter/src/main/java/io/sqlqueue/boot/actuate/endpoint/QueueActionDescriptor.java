package io.sqlqueue.boot.actuate.endpoint;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * What an action on a queue did.
 * @param done whether it changed anything (pausing a paused queue, or resuming one not
 * paused, does not)
 */
public record QueueActionDescriptor(String queue, String action, boolean done, String message)
		implements OperationResponseBody {
}
