package io.sqlqueue.internal.manager;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

import io.sqlqueue.Names;
import io.sqlqueue.handler.RetryPolicy;

/**
 * How a {@link Manager} runs.
 *
 * @param workerId identifies this instance in {@code lease_owner}
 * @param pollInterval the longest wait between claims when the queues are empty
 * @param batchSize the most jobs one claim takes
 * @param prefetch claimed jobs a queue may hold beyond its busy workers, ready for the next free one
 *     (by default the batch size, so that a whole batch can be claimed while the workers are busy)
 * @param completionLinger the longest a finished job waits to be recorded with others in one round trip
 * @param completionBatchSize the most finished jobs recorded in one round trip
 * @param leaseDuration how long a claim holds without a heartbeat
 * @param heartbeatInterval how often running jobs' leases are extended
 * @param shutdownTimeout how long stopping waits for running handlers
 * @param handlerTimeout how long an attempt may run unless its handler says otherwise
 * @param defaultConcurrency workers per queue unless {@code concurrency} says otherwise
 * @param concurrency workers per queue, by queue name
 * @param queues queues to serve besides those the handlers name
 * @param retryPolicy attempts and backoff unless a handler says otherwise
 * @param resultMaxSize the largest result, in bytes of JSON, that is stored; a larger one is
 *     dropped and the job still succeeds, with a note in {@code last_error}
 * @param instanceRetention how long the row of an instance that stopped beating is kept (shown
 *     as gone) before an instance's beat deletes it
 */
public record ManagerSettings(String workerId, Duration pollInterval, int batchSize, int prefetch,
		Duration completionLinger, int completionBatchSize, Duration leaseDuration,
		Duration heartbeatInterval, Duration shutdownTimeout, Duration handlerTimeout, int defaultConcurrency,
		Map<String, Integer> concurrency, Set<String> queues, RetryPolicy retryPolicy, int resultMaxSize,
		Duration instanceRetention) {

	/**
	 * The largest {@code batchSize} and {@code prefetch}. A limited claim binds its admitted
	 * ids padded to a power of two, and reads the rate windows of up to twice a claim's
	 * candidates' keys, padded too: with at most 4,096 jobs a claim, no statement binds more than
	 * 8,193 parameters (plus the queue's handlers and at most 512 left-out keys), an eighth of
	 * the smallest limit of the supported drivers (PostgreSQL's 65,535; a quarter of the 32,766
	 * of an SQLite built with its defaults, though the bundled one takes 250,000). Past 32,768,
	 * a limited claim that admitted that many jobs failed with the driver's own error. The prefetch,
	 * which defaults to the batch size, has the same bound: jobs held ready beyond it would only
	 * wait in memory, kept from other instances.
	 */
	public static final int MAX_BATCH_SIZE = 4096;

	/** The default largest stored result: 1 MiB, as for payloads. */
	public static final int DEFAULT_RESULT_MAX_SIZE = 1024 * 1024;

	public ManagerSettings {
		if (workerId.isEmpty() || workerId.length() > 128) {
			throw new IllegalArgumentException("workerId must have 1 to 128 characters");
		}
		requirePositive("pollInterval", pollInterval);
		requirePositive("leaseDuration", leaseDuration);
		requirePositive("heartbeatInterval", heartbeatInterval);
		requirePositive("handlerTimeout", handlerTimeout);
		requirePositive("instanceRetention", instanceRetention);
		if (shutdownTimeout.isNegative()) {
			throw new IllegalArgumentException("shutdownTimeout must not be negative");
		}
		if (completionLinger.compareTo(heartbeatInterval) >= 0) {
			// A finished job waiting to be recorded gets no heartbeat: it must be written well within its lease.
			throw new IllegalArgumentException("completionLinger (" + completionLinger
					+ ") must be shorter than heartbeatInterval (" + heartbeatInterval + ")");
		}
		if (heartbeatInterval.compareTo(leaseDuration) >= 0) {
			throw new IllegalArgumentException("heartbeatInterval (" + heartbeatInterval
					+ ") must be shorter than leaseDuration (" + leaseDuration + "), or leases expire between beats");
		}
		if (batchSize < 1 || defaultConcurrency < 1 || completionBatchSize < 1 || resultMaxSize < 1) {
			throw new IllegalArgumentException(
					"batchSize, completionBatchSize, defaultConcurrency and resultMaxSize must be at least 1");
		}
		if (prefetch < 0 || completionLinger.isNegative()) {
			throw new IllegalArgumentException("prefetch and completionLinger must not be negative");
		}
		if (batchSize > MAX_BATCH_SIZE || prefetch > MAX_BATCH_SIZE) {
			throw new IllegalArgumentException("batchSize (" + batchSize + ") and prefetch (" + prefetch
					+ ") must be at most " + MAX_BATCH_SIZE + ", or a limited claim binds more parameters than "
					+ "some databases take");
		}
		concurrency.forEach((queue, workers) -> {
			Names.requireQueue(queue);
			if (workers < 1) {
				throw new IllegalArgumentException("concurrency of queue '" + queue + "' must be at least 1");
			}
		});
		queues.forEach(Names::requireQueue);
		concurrency = Map.copyOf(concurrency);
		queues = Set.copyOf(queues);
	}

	/**
	 * The defaults: poll every second, claim batches of up to 100 (held ready per queue as far
	 * as the workers get through them within 100 ms),
	 * completions recorded together within 2 ms, 60 s leases beaten every 20 s, 8 workers per
	 * queue.
	 */
	public static ManagerSettings defaults() {
		return builder().build();
	}

	public static Builder builder() {
		return new Builder();
	}

	public int concurrencyOf(String queue) {
		return this.concurrency.getOrDefault(queue, this.defaultConcurrency);
	}

	/** {@code host-pid-random}: unique per process, readable in the table. */
	public static String defaultWorkerId() {
		String host;
		try {
			host = InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			host = "unknown";
		}
		String id = host + "-" + ManagementFactory.getRuntimeMXBean().getPid() + "-"
				+ UUID.randomUUID().toString().substring(0, 8);
		return (id.length() <= 128) ? id : id.substring(id.length() - 128);
	}

	private static void requirePositive(String name, Duration value) {
		if (value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(name + " must be positive, got " + value);
		}
	}

	/** Builds settings from the defaults. */
	public static final class Builder {

		private String workerId = defaultWorkerId();

		private Duration pollInterval = Duration.ofSeconds(1);

		private int batchSize = 100;

		private @Nullable Integer prefetch;

		private Duration completionLinger = Duration.ofMillis(2);

		private int completionBatchSize = 100;

		private Duration leaseDuration = Duration.ofSeconds(60);

		private Duration heartbeatInterval = Duration.ofSeconds(20);

		private Duration shutdownTimeout = Duration.ofSeconds(30);

		private Duration handlerTimeout = Duration.ofMinutes(15);

		private int defaultConcurrency = 8;

		private Map<String, Integer> concurrency = Map.of();

		private Set<String> queues = Set.of();

		private RetryPolicy retryPolicy = RetryPolicy.DEFAULT;

		private int resultMaxSize = DEFAULT_RESULT_MAX_SIZE;

		private Duration instanceRetention = Duration.ofHours(1);

		private Builder() {
		}

		public Builder workerId(String workerId) {
			this.workerId = workerId;
			return this;
		}

		public Builder pollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
			return this;
		}

		public Builder batchSize(int batchSize) {
			this.batchSize = batchSize;
			return this;
		}

		/** Also sets the heartbeat to a third of the lease. */
		public Builder prefetch(int prefetch) {
			this.prefetch = prefetch;
			return this;
		}

		public Builder completionLinger(Duration completionLinger) {
			this.completionLinger = completionLinger;
			return this;
		}

		public Builder completionBatchSize(int completionBatchSize) {
			this.completionBatchSize = completionBatchSize;
			return this;
		}

		public Builder leaseDuration(Duration leaseDuration) {
			this.leaseDuration = leaseDuration;
			this.heartbeatInterval = leaseDuration.dividedBy(3);
			return this;
		}

		public Builder heartbeatInterval(Duration heartbeatInterval) {
			this.heartbeatInterval = heartbeatInterval;
			return this;
		}

		public Builder shutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = shutdownTimeout;
			return this;
		}

		public Builder handlerTimeout(Duration handlerTimeout) {
			this.handlerTimeout = handlerTimeout;
			return this;
		}

		public Builder defaultConcurrency(int defaultConcurrency) {
			this.defaultConcurrency = defaultConcurrency;
			return this;
		}

		public Builder concurrency(Map<String, Integer> concurrency) {
			this.concurrency = concurrency;
			return this;
		}

		public Builder queues(Set<String> queues) {
			this.queues = queues;
			return this;
		}

		public Builder retryPolicy(RetryPolicy retryPolicy) {
			this.retryPolicy = retryPolicy;
			return this;
		}

		public Builder resultMaxSize(int resultMaxSize) {
			this.resultMaxSize = resultMaxSize;
			return this;
		}

		public Builder instanceRetention(Duration instanceRetention) {
			this.instanceRetention = instanceRetention;
			return this;
		}

		public ManagerSettings build() {
			int prefetch = (this.prefetch != null) ? this.prefetch : this.batchSize;
			return new ManagerSettings(this.workerId, this.pollInterval, this.batchSize, prefetch,
					this.completionLinger, this.completionBatchSize, this.leaseDuration,
					this.heartbeatInterval, this.shutdownTimeout, this.handlerTimeout, this.defaultConcurrency,
					this.concurrency, this.queues, this.retryPolicy, this.resultMaxSize, this.instanceRetention);
		}

	}

}
