package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.util.unit.DataSize;

/**
 * Settings of the Manager, which claims and runs jobs on this instance, under
 * {@code sqlqueue.manager.*}: everything it reads but the per-queue settings of
 * {@code sqlqueue.queues.*} and the retry policy of {@code sqlqueue.retry.*}, which
 * enqueues read too.
 */
public class ManagerProperties {

	/**
	 * Whether this instance runs jobs. Disable it for applications that only enqueue.
	 */
	private boolean enabled = true;

	/**
	 * Identifier of this instance in the leases it takes. When not set, host, process id
	 * and a random suffix.
	 */
	private @Nullable String workerId;

	/**
	 * Workers per queue unless the queue's own concurrency says otherwise.
	 */
	private int concurrency = 8;

	/**
	 * Longest wait between claims when the queues are empty.
	 */
	private Duration pollInterval = Duration.ofSeconds(1);

	/**
	 * Most jobs one claim takes, 1 to 4096 (a claim binds up to twice as many parameters, an
	 * eighth of PostgreSQL's limit).
	 */
	private int batchSize = 100;

	/**
	 * Most claimed jobs a queue holds beyond its busy workers, ready for the next free one;
	 * it holds only as many as its workers finish within about 100 ms, and at most 4096. When
	 * not set, the batch size.
	 */
	private @Nullable Integer prefetch;

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
	 * How long an attempt may run unless its handler says otherwise.
	 */
	private Duration handlerTimeout = Duration.ofMinutes(15);

	/**
	 * How long stopping waits for running handlers before leaving them to the reaper.
	 */
	private Duration shutdownTimeout = Duration.ofSeconds(30);

	/**
	 * Largest encoded result (JSON) that is stored; a larger one is left out, and the job
	 * still succeeds with the reason in its last error.
	 */
	private DataSize resultMaxSize = DataSize.ofMegabytes(1);

	private final Completion completion = new Completion();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable String getWorkerId() {
		return this.workerId;
	}

	public void setWorkerId(@Nullable String workerId) {
		this.workerId = workerId;
	}

	public int getConcurrency() {
		return this.concurrency;
	}

	public void setConcurrency(int concurrency) {
		this.concurrency = concurrency;
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

	public @Nullable Integer getPrefetch() {
		return this.prefetch;
	}

	public void setPrefetch(@Nullable Integer prefetch) {
		this.prefetch = prefetch;
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

	public Duration getHandlerTimeout() {
		return this.handlerTimeout;
	}

	public void setHandlerTimeout(Duration handlerTimeout) {
		this.handlerTimeout = handlerTimeout;
	}

	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
	}

	public DataSize getResultMaxSize() {
		return this.resultMaxSize;
	}

	public void setResultMaxSize(DataSize resultMaxSize) {
		this.resultMaxSize = resultMaxSize;
	}

	public Completion getCompletion() {
		return this.completion;
	}

	/**
	 * How finished jobs are recorded.
	 */
	public static class Completion {

		/**
		 * Longest a finished job waits to be recorded together with others, in one round trip
		 * and one commit. A crash before then re-runs the job after its lease, as any crash.
		 */
		private Duration linger = Duration.ofMillis(2);

		/**
		 * Most finished jobs recorded in one round trip.
		 */
		private int batchSize = 100;

		public Duration getLinger() {
			return this.linger;
		}

		public void setLinger(Duration linger) {
			this.linger = linger;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

	}

}
