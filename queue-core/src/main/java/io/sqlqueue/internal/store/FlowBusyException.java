package io.sqlqueue.internal.store;

/** A claim found its queue's flow row held by another transaction for longer than it waits ({@link FlowLocks#LOCK_WAIT}). */
final class FlowBusyException extends RuntimeException {

	FlowBusyException(String queue, RuntimeException cause) {
		super("The flow row of queue '" + queue + "' is held by another transaction", cause);
	}

}
