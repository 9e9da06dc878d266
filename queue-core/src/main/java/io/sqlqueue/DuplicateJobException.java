package io.sqlqueue;

/**
 * A job was not enqueued because an unfinished ({@code QUEUED} or {@code RUNNING}) job
 * with the same unique key exists.
 */
public class DuplicateJobException extends RuntimeException {

	private final String uniqueKey;

	public DuplicateJobException(String uniqueKey) {
		super("An unfinished job with unique key '" + uniqueKey + "' already exists");
		this.uniqueKey = uniqueKey;
	}

	public String getUniqueKey() {
		return this.uniqueKey;
	}

}
