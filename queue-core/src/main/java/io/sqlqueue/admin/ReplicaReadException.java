package io.sqlqueue.admin;

/**
 * A read that goes to the read-only replica ({@code @SqlQueueReadDataSource}) failed: the
 * replica could not be reached, or answered with an error (its cause says which). Such reads
 * never fall back to the queue's own database; everything else the queue does runs there and
 * is not affected.
 */
public class ReplicaReadException extends RuntimeException {

	/**
	 * @param what what could not be read, as in "could not {@code what} from the read replica"
	 * @param cause the replica's failure
	 */
	public ReplicaReadException(String what, Throwable cause) {
		super("Could not " + what + " from the read replica (the @SqlQueueReadDataSource DataSource): "
				+ cause.getMessage(), cause);
	}

}
