package io.sqlqueue.boot.autoconfigure;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.internal.store.ClaimMethod;

/**
 * The queue's tables and statements in the application's database, under
 * {@code sqlqueue.jdbc.*} (as Spring Boot's {@code spring.batch.jdbc.*} and
 * {@code spring.session.jdbc.*}).
 */
public class JdbcProperties {

	/**
	 * Schema of the queue's table and its migration history. When not set, the
	 * connection's default schema is used.
	 */
	private @Nullable String schema;

	/**
	 * Whether to create and upgrade the queue's table at start-up, with its own migration
	 * history (sqlqueue_schema_history).
	 */
	private boolean migrate = true;

	/**
	 * Database dialect, such as 'postgresql' or 'h2'. When not set, it is detected from
	 * the database's metadata.
	 */
	private @Nullable String dialect;

	/**
	 * How due jobs are claimed. When not set, the dialect's own method is used;
	 * 'compare-and-set' selects the optimistic fallback.
	 */
	private @Nullable ClaimMethod claimMethod;

	/**
	 * Whether an enqueue on PostgreSQL sends a NOTIFY when it commits, and running
	 * instances LISTEN for it, so idle workers start new jobs at once instead of at their
	 * next poll. Ignored on other databases.
	 */
	private boolean notify = true;

	public @Nullable String getSchema() {
		return this.schema;
	}

	public void setSchema(@Nullable String schema) {
		this.schema = schema;
	}

	public boolean isMigrate() {
		return this.migrate;
	}

	public void setMigrate(boolean migrate) {
		this.migrate = migrate;
	}

	public @Nullable String getDialect() {
		return this.dialect;
	}

	public void setDialect(@Nullable String dialect) {
		this.dialect = dialect;
	}

	public @Nullable ClaimMethod getClaimMethod() {
		return this.claimMethod;
	}

	public void setClaimMethod(@Nullable ClaimMethod claimMethod) {
		this.claimMethod = claimMethod;
	}

	public boolean isNotify() {
		return this.notify;
	}

	public void setNotify(boolean notify) {
		this.notify = notify;
	}

}
