package io.sqlqueue.handler;

/**
 * What an enqueue does when this instance has no handler of the job's name and the name is
 * not declared as handled elsewhere (see {@code sqlqueue.remote-handlers}). The job runs only on an
 * instance that has the handler; until one does it stays {@code QUEUED}.
 */
public enum UnknownHandlerPolicy {

	/** Enqueue it, and log a warning once per name, with the closest known name. */
	WARN,

	/** Refuse it: {@link io.sqlqueue.InvalidJobException}, nothing written. */
	FAIL,

	/** Enqueue it, say nothing. */
	IGNORE

}
