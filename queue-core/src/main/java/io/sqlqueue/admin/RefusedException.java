package io.sqlqueue.admin;

/**
 * An operator request that is wrong in itself, whatever the jobs' states: a bulk action
 * over {@link QueueAdmin#MAX_BULK} jobs, an invalid limit. Nothing was changed. The
 * Actuator endpoint answers it as a 400.
 */
public class RefusedException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	private final Refusal refusal;

	/** Refused for this reason, its message filled in with these values. */
	public RefusedException(Refusal refusal, Object... values) {
		super(refusal.message(values));
		this.refusal = refusal;
	}

	/** Why the request was refused. */
	public Refusal refusal() {
		return this.refusal;
	}

}
