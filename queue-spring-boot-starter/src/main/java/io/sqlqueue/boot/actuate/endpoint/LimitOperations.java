package io.sqlqueue.boot.actuate.endpoint;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

import io.sqlqueue.admin.AdminResult;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.RefusedException;
import io.sqlqueue.flow.FlowControl;

/**
 * The queues' limits and fair turns (docs/flow-control.md), for {@link SqlQueueEndpoint}:
 * setting or removing one ({@code POST /sqlqueue/limits/{queue}}). {@code GET /sqlqueue}
 * shows them with each queue ({@link QueueOperations}).
 */
final class LimitOperations {

	private final @Nullable FlowControl flowControl;

	LimitOperations(@Nullable FlowControl flowControl) {
		this.flowControl = flowControl;
	}

	/**
	 * Sets ({@code action=set}, with {@code concurrency} and/or {@code rateLimit}) or removes
	 * ({@code action=remove}) the queue's own limit, or with {@code keys} the limit of the
	 * concurrency keys that pattern matches; makes the queue's keys take turns
	 * ({@code action=fair}, with {@code weights}) or ends their turns ({@code action=unfair}),
	 * as {@code admin}. Says what happened and shows the queue's limits afterwards.
	 */
	LimitActionDescriptor act(QueueAdmin admin, String queue, String action, @Nullable String keys,
			@Nullable Integer concurrency, @Nullable String rateLimit, @Nullable String weights) {
		AdminResult result;
		try {
			result = switch (action) {
				case "set" -> admin.setLimit(queue, keys, concurrency, rateLimit);
				case "remove" -> admin.removeLimit(queue, keys);
				case "fair" -> admin.setFairness(queue, weights);
				case "unfair" -> admin.removeFairness(queue);
				default -> throw new InvalidEndpointRequestException(
						"Unknown action '" + action + "'; use 'set', 'remove', 'fair' or 'unfair'", "Unknown action");
			};
		}
		catch (RefusedException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid limit");
		}
		FlowControl flow = this.flowControl;
		LimitsDescriptor limits = (flow != null) ? LimitsDescriptor.shown(flow.limits(queue), flow) : null;
		return new LimitActionDescriptor(queue, keys, action, result.done(), limits, result.message());
	}

}
