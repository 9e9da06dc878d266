package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

import io.sqlqueue.store.ClaimMethod;

/**
 * Configuration of sqlqueue, under {@code sqlqueue.*}.
 */
@ConfigurationProperties("sqlqueue")
public class SqlQueueProperties {

	/**
	 * Whether to auto-configure sqlqueue.
	 */
	private boolean enabled = true;

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
	 * Identifier of this instance in the leases it takes. When not set, host, process id
	 * and a random suffix.
	 */
	private @Nullable String workerId;

	/**
	 * Longest wait between claims when the queues are empty.
	 */
	private Duration pollInterval = Duration.ofSeconds(1);

	/**
	 * Most jobs one claim takes.
	 */
	private int batchSize = 10;

	/**
	 * How long a claim holds without a heartbeat before the reaper may hand the job to
	 * another worker.
	 */
	private Duration leaseDuration = Duration.ofSeconds(60);

	/**
	 * How often the leases of running jobs are extended. When not set, a third of the
	 * lease duration.
	 */
	private @Nullable Duration heartbeatInterval;

	/**
	 * How often expired leases are looked for and their jobs re-queued.
	 */
	private Duration reaperInterval = Duration.ofSeconds(15);

	/**
	 * How long stopping waits for running handlers before leaving them to the reaper.
	 */
	private Duration shutdownTimeout = Duration.ofSeconds(30);

	/**
	 * How long an attempt may run unless its handler says otherwise.
	 */
	private Duration handlerTimeout = Duration.ofMinutes(15);

	/**
	 * Workers per queue unless the queue's own concurrency says otherwise.
	 */
	private int concurrency = 8;

	/**
	 * Settings per queue, by queue name (use brackets for names with dots, such as
	 * 'sqlqueue.queues[mail.bulk].concurrency'). A queue listed here is served even when
	 * no handler names it.
	 */
	private Map<String, QueueProperties> queues = new LinkedHashMap<>();

	/**
	 * Largest encoded payload (JSON) a job may have.
	 */
	private DataSize payloadMaxSize = DataSize.ofMegabytes(1);

	private final Manager manager = new Manager();

	private final Retry retry = new Retry();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

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

	public @Nullable String getWorkerId() {
		return this.workerId;
	}

	public void setWorkerId(@Nullable String workerId) {
		this.workerId = workerId;
	}

	public Duration getPollInterval() {
		return this.pollInterval;
	}

	public void setPollInterval(Duration pollInterval) {
		this.pollInterval = pollInterval;
	}

	public int getBatchSize() {
		return this.batchSize;
	}

	public void setBatchSize(int batchSize) {
		this.batchSize = batchSize;
	}

	public Duration getLeaseDuration() {
		return this.leaseDuration;
	}

	public void setLeaseDuration(Duration leaseDuration) {
		this.leaseDuration = leaseDuration;
	}

	public @Nullable Duration getHeartbeatInterval() {
		return this.heartbeatInterval;
	}

	public void setHeartbeatInterval(@Nullable Duration heartbeatInterval) {
		this.heartbeatInterval = heartbeatInterval;
	}

	public Duration getReaperInterval() {
		return this.reaperInterval;
	}

	public void setReaperInterval(Duration reaperInterval) {
		this.reaperInterval = reaperInterval;
	}

	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
	}

	public Duration getHandlerTimeout() {
		return this.handlerTimeout;
	}

	public void setHandlerTimeout(Duration handlerTimeout) {
		this.handlerTimeout = handlerTimeout;
	}

	public int getConcurrency() {
		return this.concurrency;
	}

	public void setConcurrency(int concurrency) {
		this.concurrency = concurrency;
	}

	public Map<String, QueueProperties> getQueues() {
		return this.queues;
	}

	public void setQueues(Map<String, QueueProperties> queues) {
		this.queues = queues;
	}

	public DataSize getPayloadMaxSize() {
		return this.payloadMaxSize;
	}

	public void setPayloadMaxSize(DataSize payloadMaxSize) {
		this.payloadMaxSize = payloadMaxSize;
	}

	public Manager getManager() {
		return this.manager;
	}

	public Retry getRetry() {
		return this.retry;
	}

	/**
	 * Settings of one queue.
	 */
	public static class QueueProperties {

		/**
		 * Workers for this queue. When not set, 'sqlqueue.concurrency'.
		 */
		private @Nullable Integer concurrency;

		public @Nullable Integer getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(@Nullable Integer concurrency) {
			this.concurrency = concurrency;
		}

	}

	/**
	 * Whether and how this instance runs jobs.
	 */
	public static class Manager {

		/**
		 * Whether this instance runs jobs. Disable it for applications that only enqueue.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Attempts and backoff of failed jobs, unless a handler says otherwise.
	 */
	public static class Retry {

		/**
		 * Attempts before a job fails for good.
		 */
		private int maxAttempts = 10;

		/**
		 * Wait after the first failed attempt.
		 */
		private Duration initialBackoff = Duration.ofSeconds(5);

		/**
		 * Factor by which the wait grows after each further failed attempt.
		 */
		private double multiplier = 2.0;

		/**
		 * Longest wait between attempts.
		 */
		private Duration maxBackoff = Duration.ofHours(1);

		/**
		 * Random spread of each wait, as a fraction of it (0.2 means plus or minus 20%).
		 */
		private double jitter = 0.2;

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public Duration getInitialBackoff() {
			return this.initialBackoff;
		}

		public void setInitialBackoff(Duration initialBackoff) {
			this.initialBackoff = initialBackoff;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMaxBackoff() {
			return this.maxBackoff;
		}

		public void setMaxBackoff(Duration maxBackoff) {
			this.maxBackoff = maxBackoff;
		}

		public double getJitter() {
			return this.jitter;
		}

		public void setJitter(double jitter) {
			this.jitter = jitter;
		}

	}

}
