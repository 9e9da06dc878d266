package io.sqlqueue.handler;

import java.time.Duration;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;
import io.sqlqueue.PayloadCodec;

/**
 * One handler: its name, default queue, its overrides of the retry and timeout defaults,
 * and the code that runs it.
 *
 * @param maxAttempts attempts before failing for good, or {@code null} for the default
 * @param timeout how long an attempt may run, or {@code null} for the default
 * @param noRetryFor exceptions that fail the job at once
 * @param description where it comes from, for messages (such as the bean method)
 * @param transactional whether the handler runs in the transaction that completes its job
 * @param lenientPayload whether its payloads decode leniently (see {@link PayloadCodec}); its
 * invoker does the decoding, and this says so to those that decode its payloads elsewhere
 */
public record HandlerDefinition(String name, String queue, @Nullable Integer maxAttempts, @Nullable Duration timeout,
		Set<Class<? extends Throwable>> noRetryFor, JobInvoker invoker, String description, boolean transactional,
		boolean lenientPayload) {

	public HandlerDefinition {
		Names.requireHandler(name);
		Names.requireQueue(queue);
		if (maxAttempts != null && maxAttempts < 1) {
			throw new IllegalArgumentException("maxAttempts of handler '" + name + "' must be at least 1");
		}
		if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
			throw new IllegalArgumentException("timeout of handler '" + name + "' must be positive");
		}
		noRetryFor = Set.copyOf(noRetryFor);
	}

	/** A handler whose payloads decode strictly. */
	public HandlerDefinition(String name, String queue, @Nullable Integer maxAttempts, @Nullable Duration timeout,
			Set<Class<? extends Throwable>> noRetryFor, JobInvoker invoker, String description, boolean transactional) {
		this(name, queue, maxAttempts, timeout, noRetryFor, invoker, description, transactional, false);
	}

	/** A handler that does not run in its job's completing transaction. */
	public HandlerDefinition(String name, String queue, @Nullable Integer maxAttempts, @Nullable Duration timeout,
			Set<Class<? extends Throwable>> noRetryFor, JobInvoker invoker, String description) {
		this(name, queue, maxAttempts, timeout, noRetryFor, invoker, description, false);
	}

	/** A handler on the given queue with the defaults for everything else. */
	public static HandlerDefinition of(String name, String queue, JobInvoker invoker) {
		return new HandlerDefinition(name, queue, null, null, Set.of(), invoker, name);
	}

	/** Whether this failure should fail the job at once rather than be retried. */
	public boolean isNonRetryable(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof io.sqlqueue.NonRetryableException) {
				return true;
			}
			for (Class<? extends Throwable> type : this.noRetryFor) {
				if (type.isInstance(cause)) {
					return true;
				}
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return false;
	}

}
