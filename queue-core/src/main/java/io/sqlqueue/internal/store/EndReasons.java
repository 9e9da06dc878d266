package io.sqlqueue.internal.store;

import java.time.Instant;

/** The last errors the queue itself writes when it ends a job or gives it back. */
public final class EndReasons {

	/** The reason a job whose lease expired gives (the reaper's). */
	static final String LEASE_EXPIRED = "Lease expired before the attempt finished "
			+ "(the worker crashed, hung, or lost its database connection)";

	/** The reason a job cancelled while it ran gives in its last error. */
	public static final String CANCELLED_WHILE_RUNNING = "Cancelled while running, on request";

	/** The reason a job reaped after its instance stopped and left its handler running gives. */
	public static final String LEFT_AT_STOP = "Lease expired after its instance stopped: the handler did not end when "
			+ "interrupted at stop; no crash counted";

	/** The reason a job given back by an instance that stopped while it ran gives in its last error. */
	public static final String STOPPED_WHILE_RUNNING = "Stopped while running: its instance shut down past "
			+ "sqlqueue.manager.shutdown-timeout and interrupted the handler; given back, no attempt spent";

	private EndReasons() {
	}

	/** The reason an expired job gives in its last error. */
	public static String deadlinePassed(Instant deadline) {
		return "Deadline " + deadline + " passed before the job started";
	}

}
