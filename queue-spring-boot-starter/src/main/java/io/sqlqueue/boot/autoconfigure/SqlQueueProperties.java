package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

import io.sqlqueue.handler.UnknownHandlerPolicy;

/**
 * Configuration of sqlqueue, under {@code sqlqueue.*}, shaped as Spring Boot's own: a few
 * settings at the top (the queues, the schedules, what an enqueue accepts), and a group
 * for each part: {@code jdbc} (tables and statements), {@code manager} (everything the
 * Manager reads), {@code maintenance} (the periodic loops' intervals), {@code retry},
 * {@code retention}, {@code await}, {@code observations} and {@code metrics}. The
 * Actuator endpoint and the health indicator have theirs under {@code management.*}
 * ({@code SqlQueueEndpointProperties}, {@code SqlQueueHealthIndicatorProperties}).
 * <p>
 * Names that moved when the properties were grouped are listed in {@link MovedProperties}:
 * start-up fails when one is still set, naming its replacement.
 */
@ConfigurationProperties("sqlqueue")
public class SqlQueueProperties {

	/**
	 * Whether to auto-configure sqlqueue.
	 */
	private boolean enabled = true;

	/**
	 * Settings per queue, by queue name (use brackets for names with dots, such as
	 * 'sqlqueue.queues[mail.bulk].concurrency'). A queue listed here is served even when
	 * no handler names it. Each takes 'concurrency' (workers on this instance),
	 * 'global-concurrency' (most of its jobs running on all instances together), 'rate-limit'
	 * (most starts per period on all instances, such as '100/1m'), 'key-limits' (a list of
	 * 'keys', an exact concurrency key, a prefix such as 'customer:*' or '*', with a
	 * 'concurrency' and/or a 'rate-limit' for each such key), 'fair' (its concurrency keys
	 * take turns) and 'fair-weights' (weights of those turns by key pattern).
	 */
	private Map<String, QueueProperties> queues = new LinkedHashMap<>();

	/**
	 * Recurring jobs declared in the configuration, by schedule name. They are declared
	 * at every start-up where the Manager runs; one removed from here (or disabled) stops
	 * firing and shows as orphaned until it is deleted.
	 */
	private Map<String, ScheduleProperties> schedules = new LinkedHashMap<>();

	/**
	 * Largest encoded payload (JSON) a job may have.
	 */
	private DataSize payloadMaxSize = DataSize.ofMegabytes(1);

	/**
	 * What an enqueue does for a handler that this instance neither has nor lists in
	 * remote-handlers (such a job runs only where the handler is, and waits QUEUED until
	 * then): 'warn' logs once per name with the closest known name, 'fail' refuses the job
	 * (InvalidJobException), 'ignore' says nothing. Warn by default: a service that only
	 * enqueues for other services' handlers keeps working, while a typo still shows at
	 * once; 'fail' suits a service whose every handler is its own or listed. The same holds
	 * at start-up for a queue under 'sqlqueue.queues' that none of this instance's handlers
	 * runs in and that remote-queues does not list: 'warn' logs it with the closest known
	 * queue, 'fail' stops start-up, 'ignore' says nothing.
	 */
	private UnknownHandlerPolicy unknownHandlers = UnknownHandlerPolicy.WARN;

	/**
	 * Handlers that other services run, by exact name or by a prefix ending in '*' (such as
	 * 'billing.*'): an enqueue for them is expected, never warned about or refused. Their
	 * jobs go to the queue each Job names with queue(...), else to 'default'.
	 */
	private List<String> remoteHandlers = new ArrayList<>();

	/**
	 * Queues under 'sqlqueue.queues' that none of this instance's handlers runs in, yet are
	 * meant: queues other services' handlers run in (whose limits this one sets too), or
	 * queues this instance's jobs are sent to with Job.queue(...). By exact name or by a
	 * prefix ending in '*'. Any other such queue is taken for a typo (see unknown-handlers).
	 */
	private List<String> remoteQueues = new ArrayList<>();

	@NestedConfigurationProperty
	private final JdbcProperties jdbc = new JdbcProperties();

	@NestedConfigurationProperty
	private final ManagerProperties manager = new ManagerProperties();

	@NestedConfigurationProperty
	private final MaintenanceProperties maintenance = new MaintenanceProperties();

	private final Retry retry = new Retry();

	private final Retention retention = new Retention();

	private final History history = new History();

	private final Await await = new Await();

	private final Observations observations = new Observations();

	private final Metrics metrics = new Metrics();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Map<String, QueueProperties> getQueues() {
		return this.queues;
	}

	public void setQueues(Map<String, QueueProperties> queues) {
		this.queues = queues;
	}

	public Map<String, ScheduleProperties> getSchedules() {
		return this.schedules;
	}

	public void setSchedules(Map<String, ScheduleProperties> schedules) {
		this.schedules = schedules;
	}

	public DataSize getPayloadMaxSize() {
		return this.payloadMaxSize;
	}

	public void setPayloadMaxSize(DataSize payloadMaxSize) {
		this.payloadMaxSize = payloadMaxSize;
	}

	public UnknownHandlerPolicy getUnknownHandlers() {
		return this.unknownHandlers;
	}

	public void setUnknownHandlers(UnknownHandlerPolicy unknownHandlers) {
		this.unknownHandlers = unknownHandlers;
	}

	public List<String> getRemoteHandlers() {
		return this.remoteHandlers;
	}

	public void setRemoteHandlers(List<String> remoteHandlers) {
		this.remoteHandlers = remoteHandlers;
	}

	public List<String> getRemoteQueues() {
		return this.remoteQueues;
	}

	public void setRemoteQueues(List<String> remoteQueues) {
		this.remoteQueues = remoteQueues;
	}

	public JdbcProperties getJdbc() {
		return this.jdbc;
	}

	public ManagerProperties getManager() {
		return this.manager;
	}

	public MaintenanceProperties getMaintenance() {
		return this.maintenance;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public History getHistory() {
		return this.history;
	}

	public Retention getRetention() {
		return this.retention;
	}

	public Await getAwait() {
		return this.await;
	}

	public Observations getObservations() {
		return this.observations;
	}

	public Metrics getMetrics() {
		return this.metrics;
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

		/**
		 * Attempts that may end because their worker was lost (its lease expired: the JVM died
		 * or froze) before the job fails for good, however many attempts remain.
		 */
		private int maxCrashes = 3;

		public int getMaxCrashes() {
			return this.maxCrashes;
		}

		public void setMaxCrashes(int maxCrashes) {
			this.maxCrashes = maxCrashes;
		}

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

	/**
	 * What the queue keeps of jobs' past beyond their rows.
	 */
	public static class History {

		/**
		 * Whether each ended attempt (its worker, start, end, outcome and error) is kept in
		 * queue_attempt with its job, written with the write that ended it. Off only for a
		 * schema without that table (migrations managed by hand, V10 not yet applied).
		 */
		private boolean attempts = true;

		/**
		 * Whether operator actions (retries, cancels, pauses, limits, schedules) are written to
		 * the audit log, queue_audit. Off only for a schema without that table (migrations
		 * managed by hand, V11 not yet applied).
		 */
		private boolean audit = true;

		public boolean isAudit() {
			return this.audit;
		}

		public void setAudit(boolean audit) {
			this.audit = audit;
		}

		public boolean isAttempts() {
			return this.attempts;
		}

		public void setAttempts(boolean attempts) {
			this.attempts = attempts;
		}

	}

	/**
	 * How long finished jobs, and the audit log's entries, are kept before they are deleted.
	 */
	public static class Retention {

		/**
		 * How long SUCCEEDED jobs are kept; 0 keeps them forever.
		 */
		private Duration succeeded = Duration.ofDays(7);

		/**
		 * How long CANCELLED jobs are kept; 0 keeps them forever.
		 */
		private Duration cancelled = Duration.ofDays(7);

		/**
		 * How long FAILED jobs are kept; 0 keeps them forever.
		 */
		private Duration failed = Duration.ofDays(30);

		/**
		 * How long the row of an instance that stopped beating is kept, shown as gone, before
		 * a live instance deletes it. An instance that stops cleanly deletes its own at once.
		 */
		private Duration instances = Duration.ofHours(1);

		/**
		 * How long the audit log's entries of operator actions are kept; 0 keeps them forever.
		 */
		private Duration audit = Duration.ofDays(30);

		public Duration getAudit() {
			return this.audit;
		}

		public void setAudit(Duration audit) {
			this.audit = audit;
		}

		public Duration getInstances() {
			return this.instances;
		}

		public void setInstances(Duration instances) {
			this.instances = instances;
		}

		public Duration getSucceeded() {
			return this.succeeded;
		}

		public void setSucceeded(Duration succeeded) {
			this.succeeded = succeeded;
		}

		public Duration getCancelled() {
			return this.cancelled;
		}

		public void setCancelled(Duration cancelled) {
			this.cancelled = cancelled;
		}

		public Duration getFailed() {
			return this.failed;
		}

		public void setFailed(Duration failed) {
			this.failed = failed;
		}

	}

	/**
	 * Awaiting jobs ({@code JobQueue.await}).
	 */
	public static class Await {

		/**
		 * Longest wait between two reads of the awaited jobs, which see jobs that finished on
		 * other instances when no notification told of them (notifications are PostgreSQL's
		 * only).
		 */
		private Duration maxPollInterval = Duration.ofSeconds(1);

		public Duration getMaxPollInterval() {
			return this.maxPollInterval;
		}

		public void setMaxPollInterval(Duration maxPollInterval) {
			this.maxPollInterval = maxPollInterval;
		}

	}

	/**
	 * Observations of enqueues and attempts, which carry traces from an enqueue to its job.
	 */
	public static class Observations {

		/**
		 * Whether enqueues and attempts are observed (sqlqueue.enqueue, sqlqueue.job) when
		 * Micrometer Tracing is on the class path, so that a job's spans join the trace of the
		 * request that enqueued it.
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
	 * Micrometer meters.
	 */
	public static class Metrics {

		/**
		 * Whether the execution and wait timers publish a histogram for percentiles
		 * computed by the monitoring system.
		 */
		private boolean percentilesHistogram = false;

		public boolean isPercentilesHistogram() {
			return this.percentilesHistogram;
		}

		public void setPercentilesHistogram(boolean percentilesHistogram) {
			this.percentilesHistogram = percentilesHistogram;
		}

	}

}
