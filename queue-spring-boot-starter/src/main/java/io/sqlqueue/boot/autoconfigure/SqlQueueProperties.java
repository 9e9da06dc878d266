package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

import io.sqlqueue.handler.UnknownHandlerPolicy;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.schedule.MisfirePolicy;
import io.sqlqueue.schedule.OverlapPolicy;

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
	 * Whether an enqueue on PostgreSQL sends a NOTIFY when it commits, and running
	 * instances LISTEN for it, so idle workers start new jobs at once instead of at their
	 * next poll. Ignored on other databases.
	 */
	private boolean notify = true;

	/**
	 * How often the queue vacuums its tables itself where the database would not (PostgreSQL
	 * with autovacuum off); where autovacuum runs, the queue leaves it alone.
	 */
	private Duration vacuumInterval = Duration.ofMinutes(1);

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
	 * no handler names it. Each takes 'concurrency' (workers on this instance),
	 * 'global-concurrency' (most of its jobs running on all instances together), 'rate-limit'
	 * (most starts per period on all instances, such as '100/1m') and 'key-limits' (a list of
	 * 'keys', an exact concurrency key, a prefix such as 'customer:*' or '*', with a
	 * 'concurrency' and/or a 'rate-limit' for each such key).
	 */
	private Map<String, QueueProperties> queues = new LinkedHashMap<>();

	/**
	 * Largest encoded payload (JSON) a job may have.
	 */
	private DataSize payloadMaxSize = DataSize.ofMegabytes(1);

	/**
	 * Largest encoded result (JSON) that is stored; a larger one is left out, and the job
	 * still succeeds with the reason in its last error.
	 */
	private DataSize resultMaxSize = DataSize.ofMegabytes(1);

	/**
	 * How often the jobs per queue and state are counted (one grouped query) for the
	 * gauges and the health indicator.
	 */
	private Duration statsInterval = Duration.ofSeconds(30);

	/**
	 * How often due schedules are looked for and fired, where the Manager runs.
	 */
	private Duration scheduleInterval = Duration.ofSeconds(1);

	/**
	 * Recurring jobs declared in the configuration, by schedule name. They are declared
	 * at every start-up where the Manager runs; one removed from here (or disabled) stops
	 * firing and shows as orphaned until it is deleted.
	 */
	private Map<String, ScheduleProperties> schedules = new LinkedHashMap<>();

	/**
	 * What an enqueue does for a handler that this instance neither has nor lists in
	 * remote-handlers (such a job runs only where the handler is, and waits QUEUED until
	 * then): 'warn' logs once per name with the closest known name, 'fail' refuses the job
	 * (InvalidJobException), 'ignore' says nothing. Warn by default: a service that only
	 * enqueues for other services' handlers keeps working, while a typo still shows at
	 * once; 'fail' suits a service whose every handler is its own or listed.
	 */
	private UnknownHandlerPolicy unknownHandlers = UnknownHandlerPolicy.WARN;

	/**
	 * Handlers that other services run, by exact name or by a prefix ending in '*' (such as
	 * 'billing.*'): an enqueue for them is expected, never warned about or refused. Their
	 * jobs go to the queue each Job names with queue(...), else to 'default'.
	 */
	private List<String> remoteHandlers = new ArrayList<>();

	private final Manager manager = new Manager();

	private final Completion completion = new Completion();

	private final Retry retry = new Retry();

	private final Await await = new Await();

	private final Observations observations = new Observations();

	private final Retention retention = new Retention();

	private final Health health = new Health();

	private final Metrics metrics = new Metrics();

	private final Endpoint endpoint = new Endpoint();

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

	public @Nullable Integer getPrefetch() {
		return this.prefetch;
	}

	public void setPrefetch(@Nullable Integer prefetch) {
		this.prefetch = prefetch;
	}

	public Duration getVacuumInterval() {
		return this.vacuumInterval;
	}

	public void setVacuumInterval(Duration vacuumInterval) {
		this.vacuumInterval = vacuumInterval;
	}

	public boolean isNotify() {
		return this.notify;
	}

	public void setNotify(boolean notify) {
		this.notify = notify;
	}

	public Completion getCompletion() {
		return this.completion;
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

	public DataSize getResultMaxSize() {
		return this.resultMaxSize;
	}

	public void setResultMaxSize(DataSize resultMaxSize) {
		this.resultMaxSize = resultMaxSize;
	}

	public DataSize getPayloadMaxSize() {
		return this.payloadMaxSize;
	}

	public void setPayloadMaxSize(DataSize payloadMaxSize) {
		this.payloadMaxSize = payloadMaxSize;
	}

	public Duration getStatsInterval() {
		return this.statsInterval;
	}

	public void setStatsInterval(Duration statsInterval) {
		this.statsInterval = statsInterval;
	}

	public Duration getScheduleInterval() {
		return this.scheduleInterval;
	}

	public void setScheduleInterval(Duration scheduleInterval) {
		this.scheduleInterval = scheduleInterval;
	}

	public Map<String, ScheduleProperties> getSchedules() {
		return this.schedules;
	}

	public void setSchedules(Map<String, ScheduleProperties> schedules) {
		this.schedules = schedules;
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

	public Manager getManager() {
		return this.manager;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public Await getAwait() {
		return this.await;
	}

	public Observations getObservations() {
		return this.observations;
	}

	public Retention getRetention() {
		return this.retention;
	}

	public Health getHealth() {
		return this.health;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public Endpoint getEndpoint() {
		return this.endpoint;
	}

	/**
	 * Settings of one queue.
	 */
	public static class QueueProperties {

		/**
		 * Workers for this queue. When not set, 'sqlqueue.concurrency'.
		 */
		private @Nullable Integer concurrency;

		/**
		 * Most jobs of this queue running at once across every instance. When not set, only
		 * each instance's own 'concurrency' holds.
		 */
		private @Nullable Integer globalConcurrency;

		/**
		 * Most job starts of this queue per period across every instance, written
		 * starts/period, such as '100/1m' or '10/1s'.
		 */
		private @Nullable String rateLimit;

		/**
		 * Limits for each concurrency key of this queue that a pattern matches: an exact key,
		 * a prefix ending in '*' (each matching key counted on its own), or '*' for every key.
		 */
		private List<KeyLimitProperties> keyLimits = new ArrayList<>();

		public @Nullable Integer getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(@Nullable Integer concurrency) {
			this.concurrency = concurrency;
		}

		public @Nullable Integer getGlobalConcurrency() {
			return this.globalConcurrency;
		}

		public void setGlobalConcurrency(@Nullable Integer globalConcurrency) {
			this.globalConcurrency = globalConcurrency;
		}

		public @Nullable String getRateLimit() {
			return this.rateLimit;
		}

		public void setRateLimit(@Nullable String rateLimit) {
			this.rateLimit = rateLimit;
		}

		public List<KeyLimitProperties> getKeyLimits() {
			return this.keyLimits;
		}

		public void setKeyLimits(List<KeyLimitProperties> keyLimits) {
			this.keyLimits = keyLimits;
		}

	}

	/**
	 * Limits for each concurrency key of a queue that a pattern matches.
	 */
	public static class KeyLimitProperties {

		/**
		 * Keys the limit holds for, each counted on its own: an exact key ('stripe'), a prefix
		 * ending in '*' ('customer:*'), or '*' for every key.
		 */
		private @Nullable String keys;

		/**
		 * Most jobs with one such key running at once across every instance.
		 */
		private @Nullable Integer concurrency;

		/**
		 * Most starts of jobs with one such key per period across every instance, written
		 * starts/period, such as '100/1m'.
		 */
		private @Nullable String rateLimit;

		public @Nullable String getKeys() {
			return this.keys;
		}

		public void setKeys(@Nullable String keys) {
			this.keys = keys;
		}

		public @Nullable Integer getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(@Nullable Integer concurrency) {
			this.concurrency = concurrency;
		}

		public @Nullable String getRateLimit() {
			return this.rateLimit;
		}

		public void setRateLimit(@Nullable String rateLimit) {
			this.rateLimit = rateLimit;
		}

	}

	/**
	 * One recurring job: either 'cron' (with 'zone') or 'every'.
	 */
	public static class ScheduleProperties {

		/**
		 * Cron expression of the ticks, six fields with seconds first, such as '0 0 2 * * *'.
		 */
		private @Nullable String cron;

		/**
		 * Time zone the cron expression is read in.
		 */
		private String zone = "UTC";

		/**
		 * Fixed interval between ticks, at least 1s, instead of a cron expression.
		 */
		private @Nullable Duration every;

		/**
		 * Name of the handler each tick's job runs.
		 */
		private @Nullable String handler;

		/**
		 * Payload of each tick's job, as JSON text.
		 */
		private String payload = "null";

		/**
		 * Queue of each tick's job. When not set, the handler's own.
		 */
		private @Nullable String queue;

		/**
		 * Whether the schedule is declared. A disabled one is not declared at all: if it was
		 * stored before, it stops firing and shows as orphaned.
		 */
		private boolean enabled = true;

		/**
		 * What to do with ticks missed while no instance fired them.
		 */
		private MisfirePolicy misfire = MisfirePolicy.FIRE_ONCE;

		/**
		 * What to do at a tick while the previous tick's job is still queued or running.
		 */
		private OverlapPolicy overlap = OverlapPolicy.SKIP;

		public @Nullable String getCron() {
			return this.cron;
		}

		public void setCron(@Nullable String cron) {
			this.cron = cron;
		}

		public String getZone() {
			return this.zone;
		}

		public void setZone(String zone) {
			this.zone = zone;
		}

		public @Nullable Duration getEvery() {
			return this.every;
		}

		public void setEvery(@Nullable Duration every) {
			this.every = every;
		}

		public @Nullable String getHandler() {
			return this.handler;
		}

		public void setHandler(@Nullable String handler) {
			this.handler = handler;
		}

		public String getPayload() {
			return this.payload;
		}

		public void setPayload(String payload) {
			this.payload = payload;
		}

		public @Nullable String getQueue() {
			return this.queue;
		}

		public void setQueue(@Nullable String queue) {
			this.queue = queue;
		}

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public MisfirePolicy getMisfire() {
			return this.misfire;
		}

		public void setMisfire(MisfirePolicy misfire) {
			this.misfire = misfire;
		}

		public OverlapPolicy getOverlap() {
			return this.overlap;
		}

		public void setOverlap(OverlapPolicy overlap) {
			this.overlap = overlap;
		}

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
	 * How long finished jobs are kept before they are deleted.
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
		 * How often finished jobs past their retention are deleted, in batches of 1000.
		 */
		private Duration interval = Duration.ofMinutes(10);

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

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

	}

	/**
	 * The health indicator (enabled with 'management.health.sqlqueue.enabled').
	 */
	public static class Health {

		/**
		 * Longest a due job may wait before its queue counts as stuck.
		 */
		private Duration maxDueAge = Duration.ofMinutes(5);

		/**
		 * Health status reported while a queue is stuck, such as 'DOWN' or a custom one
		 * (add a custom one to 'management.endpoint.health.status.order').
		 */
		private String staleStatus = "DOWN";

		public Duration getMaxDueAge() {
			return this.maxDueAge;
		}

		public void setMaxDueAge(Duration maxDueAge) {
			this.maxDueAge = maxDueAge;
		}

		public String getStaleStatus() {
			return this.staleStatus;
		}

		public void setStaleStatus(String staleStatus) {
			this.staleStatus = staleStatus;
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
	 * The 'sqlqueue' Actuator endpoint.
	 */
	public static class Endpoint {

		/**
		 * Whether a job's payload is shown; payloads may hold personal data.
		 */
		private boolean showPayload = false;

		public boolean isShowPayload() {
			return this.showPayload;
		}

		public void setShowPayload(boolean showPayload) {
			this.showPayload = showPayload;
		}

	}

}
