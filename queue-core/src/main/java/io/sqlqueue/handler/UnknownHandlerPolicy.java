package io.sqlqueue.handler;

/**
 * What an enqueue does when this instance has no handler of the job's name and the name is
 * not declared as handled elsewhere (see {@code sqlqueue.remote-handlers}). The job runs only on an
 * instance that has the handler; until one does it stays {@code QUEUED}.
 * <p>
 * The same policy holds for a queue of the configuration that none of this instance's
 * handlers runs in and that is not declared ({@code sqlqueue.remote-queues}): checked once at
 * start-up, {@link #WARN} logs it with the closest known queue, {@link #FAIL} stops start-up,
 * {@link #IGNORE} says nothing.
 */
public enum UnknownHandlerPolicy {

	/** Enqueue it, and log a warning once per name, with the closest known name. */
	WARN,

	/** Refuse it: {@link io.sqlqueue.InvalidJobException}, nothing written. */
	FAIL,

	/** Enqueue it, say nothing. */
	IGNORE

}
