package io.sqlqueue.schedule;

/**
 * An operation on a schedule found it changed (by the firer, or another operation) between
 * its read and its write, every time it tried: nothing was changed. Trying again later is
 * safe.
 */
public class ConcurrentScheduleChangeException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	public ConcurrentScheduleChangeException(String schedule, int attempts) {
		super("Schedule '" + schedule + "' changed between the read and the write of this change " + attempts
				+ " times in a row; nothing was changed, try again");
	}

}
