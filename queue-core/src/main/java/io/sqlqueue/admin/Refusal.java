package io.sqlqueue.admin;

/**
 * Why an operator action did nothing, each reason with the one message every caller shows
 * (the Actuator endpoint, the dashboard, application code). The first kind is a state of
 * the data (the action answers {@code done: false}); {@link #BULK_LIMIT},
 * {@link #INVALID_LIMIT}, {@link #INVALID_QUEUE}, {@link #UNKNOWN_QUEUE}, {@link #NO_FILTER}
 * and {@link #INVALID_FILTER} are requests
 * that are wrong in themselves, thrown as a {@link RefusedException}.
 */
public enum Refusal {

	/** There is no job with this id. */
	NO_SUCH_JOB("No job %s"),

	/** Only a {@code FAILED} job can be retried. */
	NOT_FAILED("Job %s is %s; only a FAILED job can be retried"),

	/** An unfinished job holds the failed job's unique key, so it stays failed. */
	UNIQUE_KEY_TAKEN("Job %s cannot be retried: %s"),

	/** A retry from a record named a record the job does not have. */
	NO_SUCH_RECORD("Job %s has %s records; there is no record %s to retry from"),

	/** Only a {@code WAITING}, {@code QUEUED} or {@code RUNNING} job can be cancelled. */
	NOT_CANCELLABLE("Job %s is %s; only a WAITING, QUEUED or RUNNING job can be cancelled"),

	/** A retry of the failed jobs of a queue or handler found none. */
	NO_FAILED_JOBS("No failed jobs%s to retry"),

	/** A bulk action asked for fewer than one or more than {@link QueueAdmin#MAX_BULK} jobs. */
	BULK_LIMIT("The limit must be 1 to " + QueueAdmin.MAX_BULK + ", not %s"),

	/** There is no schedule with this name. */
	NO_SUCH_SCHEDULE("No schedule named '%s'"),

	/** The schedule was paused already. */
	ALREADY_PAUSED("Schedule '%s' was paused already"),

	/** The schedule was not paused. */
	NOT_PAUSED("Schedule '%s' was not paused"),

	/**
	 * The schedule could not fire: its jobs' settings are not stored and this instance lacks
	 * its handler, or it kept changing under the trigger. The message says which.
	 */
	NOT_FIRED("%s"),

	/** This application has no flow control. */
	NO_LIMITS("This application has no limits"),

	/** There was no such limit to remove. */
	NO_SUCH_LIMIT("No limit of %s"),

	/** The limit is not valid (no concurrency and no rate, a malformed rate, a bad name...). */
	INVALID_LIMIT("Invalid limit of %s: %s"),

	/** The queue's name is blank or not a valid queue name. */
	INVALID_QUEUE("Invalid queue name '%s': %s"),

	/**
	 * No such queue: no handler of this instance serves it, no running instance lists it, no
	 * job waits in it, and it is not paused.
	 */
	UNKNOWN_QUEUE("No queue '%s': no handler serves it, no instance lists it and no job waits in it"),

	/** The queue was paused already: pausing it again changes nothing. */
	QUEUE_ALREADY_PAUSED("Queue '%s' was paused already"),

	/** The queue was not paused: resuming it changes nothing. */
	QUEUE_NOT_PAUSED("Queue '%s' was not paused"),

	/**
	 * A bulk action named no filter: it would act on every job of the table. Refused rather
	 * than guessed; a state ({@code status=FAILED}) is a filter.
	 */
	NO_FILTER("A bulk action needs a filter: name at least a queue, handler, state, tag, meta entry, payload "
			+ "field, batch, search text or time range"),

	/** A part of a filter is malformed, or this database cannot search by it. */
	INVALID_FILTER("Invalid filter: %s"),

	/** A bulk action's filter matched no job: nothing was changed. */
	NO_MATCHING_JOBS("No job matches the filter: nothing to %s");

	private final String template;

	Refusal(String template) {
		this.template = template;
	}

	/** The message, its {@code %s} filled in with these values in order. */
	public String message(Object... values) {
		return String.format(this.template, values);
	}

}
