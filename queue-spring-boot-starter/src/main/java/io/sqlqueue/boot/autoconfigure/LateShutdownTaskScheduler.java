package io.sqlqueue.boot.autoconfigure;

import org.springframework.context.event.ContextClosedEvent;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;

/**
 * A virtual-thread scheduler that keeps running until the context destroys it, instead of
 * shutting down as soon as the context starts closing: the Manager still needs it for
 * heartbeats and timeouts while it waits for running handlers to finish.
 */
@SuppressWarnings("serial")
final class LateShutdownTaskScheduler extends SimpleAsyncTaskScheduler {

	@Override
	public void onApplicationEvent(ContextClosedEvent event) {
	}

}
