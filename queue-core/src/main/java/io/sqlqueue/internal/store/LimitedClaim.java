package io.sqlqueue.internal.store;

import org.jspecify.annotations.Nullable;

/**
 * The claim of queues with limits (docs/flow-control.md): flow control's admission
 * ({@code io.sqlqueue.internal.flow.FlowClaim}), which runs the store's verbs ({@link FlowStore}) in
 * the transaction {@link QueueStore#claimJobs} chooses for it. The store defines it and flow
 * control implements it, so that the store depends on no admission of its own.
 */
public interface LimitedClaim {

	/** Whether the queue had limits at its last claim here. */
	boolean isLimited(String queue);

	/**
	 * Looks whether the queue has limits now (after a claim without limits found nothing,
	 * which it also does when the queue got limits); true when it has.
	 */
	boolean checkLimited(String queue);

	/**
	 * Claims for the request under the queue's limits, in the current transaction;
	 * {@code null} when the queue has no limits (any more).
	 * @throws FlowStore.NotReadCommittedException when the transaction is not READ COMMITTED
	 */
	@Nullable ClaimResult claim(ClaimRequest request, long token);

	/** Builds the limited claim of a store, on the store's own flow store. */
	@FunctionalInterface
	interface Factory {

		LimitedClaim create(FlowStore flows);

	}

	/**
	 * For a store built without flow control: claims nothing of a queue with limits, and says
	 * so loudly when it finds one.
	 */
	Factory NONE = (flows) -> new LimitedClaim() {

		@Override
		public boolean isLimited(String queue) {
			return false;
		}

		@Override
		public boolean checkLimited(String queue) {
			if (flows.locks().hasLimits(queue)) {
				throw new IllegalStateException("Queue '" + queue + "' has limits, and this JobStore was built "
						+ "without flow control: build it with a LimitedClaim.Factory (io.sqlqueue.internal.flow.FlowClaim::new)");
			}
			return false;
		}

		@Override
		public @Nullable ClaimResult claim(ClaimRequest request, long token) {
			return null;
		}

	};

}
