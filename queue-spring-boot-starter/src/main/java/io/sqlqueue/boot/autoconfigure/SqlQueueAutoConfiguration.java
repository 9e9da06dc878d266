package io.sqlqueue.boot.autoconfigure;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobQueue;
import io.sqlqueue.Names;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.boot.diagnostics.DatabaseUnreachableException;
import io.sqlqueue.boot.flow.LimitDeclarer;
import io.sqlqueue.boot.handler.JobHandlerBeanPostProcessor;
import io.sqlqueue.boot.schedule.ScheduleDeclarer;
import io.sqlqueue.boot.schema.QueueSchemaInitializer;
import io.sqlqueue.flow.Fairness;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.LimitDefinition;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.internal.DefaultJobQueue;
import io.sqlqueue.internal.admin.DefaultQueueAdmin;
import io.sqlqueue.internal.await.JobAwaiter;
import io.sqlqueue.internal.flow.DefaultFlowControl;
import io.sqlqueue.internal.flow.FlowClaim;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.handler.UnknownHandlers;
import io.sqlqueue.internal.handler.UnknownQueues;
import io.sqlqueue.internal.maintenance.Pruner;
import io.sqlqueue.internal.maintenance.QueueStats;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.maintenance.ReplicaLagMonitor;
import io.sqlqueue.internal.maintenance.ScheduleFirer;
import io.sqlqueue.internal.maintenance.TableHealthMonitor;
import io.sqlqueue.internal.maintenance.Vacuumer;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.manager.ManagerSettings;
import io.sqlqueue.internal.schedule.DefaultSchedules;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.FlowStore;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.LimitRow;
import io.sqlqueue.internal.store.QueueEvents;
import io.sqlqueue.internal.store.ReadStore;
import io.sqlqueue.internal.store.ScheduleStore;
import io.sqlqueue.internal.store.dialect.Dialects;
import io.sqlqueue.internal.store.postgresql.PostgresNotifications;
import io.sqlqueue.observation.JobAttemptObservationConvention;
import io.sqlqueue.observation.JobEnqueueObservationConvention;
import io.sqlqueue.observation.JobObservations;
import io.sqlqueue.observation.MicrometerJobObservations;
import io.sqlqueue.schedule.ScheduleDefinition;
import io.sqlqueue.schedule.Schedules;

/**
 * Auto-configuration for sqlqueue: the {@link JobQueue} on the application's
 * {@link DataSource}, the queue's own schema migration, the {@link Manager} and
 * {@link Reaper} that run jobs on this instance, {@link QueueStats} (the counts behind
 * gauges and health) and the {@link Pruner} of finished jobs where the Manager runs, and
 * the registration of {@link io.sqlqueue.JobHandler @JobHandler} methods, the
 * {@link JobAwaiter} behind {@code JobQueue.await} (and on PostgreSQL the notifications that
 * wake Managers, awaiters and cancels across instances), and recurring
 * jobs: {@link Schedules}, and where the Manager runs the {@link ScheduleFirer} and the
 * declaration of the schedules of {@code sqlqueue.schedules.*} and
 * {@link io.sqlqueue.boot.schedule.Recurring @Recurring} at start-up. The
 * application's {@link JobListener} beans hear what the queue does. The reads that tolerate
 * staleness ({@link ReadStore}) go to the application's
 * {@link SqlQueueReadDataSource @SqlQueueReadDataSource} DataSource where it has one. Every
 * bean backs off when the application defines its own.
 * <p>
 * The Manager's scheduler and workers are the queue's own beans
 * ({@value #TASK_SCHEDULER_BEAN_NAME}, {@value #WORKER_EXECUTOR_BEAN_NAME}), never the
 * application's, and they are not default autowiring candidates, so the application's
 * own task executor and scheduler are still auto-configured and injected as before.
 */
@AutoConfiguration(
		after = { DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
				TaskExecutionAutoConfiguration.class, TaskSchedulingAutoConfiguration.class },
		afterName = { "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
				"org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
				"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnProperty(prefix = "sqlqueue", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(SqlQueueProperties.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
public final class SqlQueueAutoConfiguration {

	/** The name of the scheduler of the Manager's loop, heartbeats, timeouts and the reaper. */
	public static final String TASK_SCHEDULER_BEAN_NAME = "sqlqueueTaskScheduler";

	/** The threads of the queue's scheduler: one for each task that shares it. */
	static final int SCHEDULER_THREADS = 10;

	/** The name of the executor whose threads run handlers. */
	public static final String WORKER_EXECUTOR_BEAN_NAME = "sqlqueueWorkerExecutor";

	/** Fails start-up while a property is still set under a name it moved from. */
	@Bean
	static MovedProperties sqlqueueMovedProperties(Environment environment) {
		return new MovedProperties(environment);
	}

	@Bean
	@ConditionalOnMissingBean
	static JobHandlerBeanPostProcessor sqlqueueJobHandlerBeanPostProcessor(ObjectProvider<HandlerRegistry> registry,
			ObjectProvider<PayloadCodec> codec) {
		return new JobHandlerBeanPostProcessor(registry, codec);
	}

	/**
	 * Whether the database could not be reached or refused the login: SQLSTATE class 08
	 * (connection exception, also the pool's timeout waiting for one) or 28 (invalid
	 * authorization), rather than a statement that failed once connected.
	 */
	private static boolean isConnectionFailure(SQLException ex) {
		String state = ex.getSQLState();
		return ex instanceof SQLTransientConnectionException
				|| ex instanceof SQLNonTransientConnectionException
				|| (state != null && (state.startsWith("08") || state.startsWith("28")));
	}

	@Bean
	@ConditionalOnMissingBean
	Dialect sqlqueueDialect(DataSource dataSource, SqlQueueProperties properties, Environment environment) {
		String name = properties.getJdbc().getDialect();
		try {
			return (name != null) ? Dialects.check(Dialects.named(name), dataSource) : Dialects.detect(dataSource);
		}
		catch (IllegalStateException ex) {
			// The first connection of the start-up: a database that does not answer is named, with its
			// cause, by DatabaseUnreachableFailureAnalyzer rather than at the end of a chain of beans.
			if (ex.getCause() instanceof SQLException connection && isConnectionFailure(connection)) {
				throw new DatabaseUnreachableException(DataSourceUrl.of(dataSource, environment), connection);
			}
			throw ex;
		}
	}

	@Bean
	@ConditionalOnMissingBean
	JobStore sqlqueueJobStore(DataSource dataSource, Dialect dialect, SqlQueueProperties properties) {
		JdbcProperties jdbc = properties.getJdbc();
		ClaimMethod claimMethod = (jdbc.getClaimMethod() != null) ? jdbc.getClaimMethod() : dialect.claimMethod();
		JobStore store = new JobStore(dataSource, dialect, jdbc.getSchema(), claimMethod,
				notifyChannel(dialect, properties), FlowClaim::new);
		store.attempts().setEnabled(properties.getHistory().isAttempts());
		store.audit().setEnabled(properties.getHistory().isAudit());
		return store;
	}

	/** Where enqueues are announced: PostgreSQL with {@code sqlqueue.jdbc.notify}, else nowhere. */
	static @Nullable String notifyChannel(Dialect dialect, SqlQueueProperties properties) {
		return (properties.getJdbc().isNotify() && dialect.notifyStatement() != null)
				? PostgresNotifications.channel(properties.getJdbc().getSchema()) : null;
	}

	@Bean
	@ConditionalOnMissingBean
	PayloadCodec sqlqueuePayloadCodec(ObjectProvider<JsonMapper> jsonMapper, SqlQueueProperties properties) {
		long maxBytes = properties.getPayloadMaxSize().toBytes();
		return new PayloadCodec(jsonMapper.getIfUnique(() -> JsonMapper.builder().build()),
				(int) Math.min(Integer.MAX_VALUE, maxBytes));
	}

	@Bean
	@ConditionalOnMissingBean
	RetryPolicy sqlqueueRetryPolicy(SqlQueueProperties properties) {
		SqlQueueProperties.Retry retry = properties.getRetry();
		return new RetryPolicy(retry.getMaxAttempts(), retry.getInitialBackoff(), retry.getMultiplier(),
				retry.getMaxBackoff(), retry.getJitter());
	}

	@Bean
	@ConditionalOnMissingBean
	HandlerRegistry sqlqueueHandlerRegistry() {
		return new HandlerRegistry();
	}

	/**
	 * Checks each enqueue's handler ({@code sqlqueue.unknown-handlers}) once every bean is
	 * made: before, {@code @JobHandler} beans made later are not registered yet.
	 */
	@Bean
	HandlersRegistered sqlqueueHandlersRegistered() {
		return new HandlersRegistered();
	}

	@Bean
	@ConditionalOnMissingBean
	UnknownHandlers sqlqueueUnknownHandlers(HandlerRegistry handlers, SqlQueueProperties properties,
			HandlersRegistered registered) {
		return new UnknownHandlers(handlers, properties.getUnknownHandlers(), properties.getRemoteHandlers(),
				registered);
	}

	@Bean
	@ConditionalOnMissingBean
	UnknownQueues sqlqueueUnknownQueues(HandlerRegistry handlers, SqlQueueProperties properties) {
		return new UnknownQueues(handlers, properties.getUnknownHandlers(), properties.getRemoteQueues());
	}

	/** Checks the queues of {@code sqlqueue.queues} once every handler is registered. */
	@Bean
	ConfiguredQueuesCheck sqlqueueConfiguredQueuesCheck(UnknownQueues unknownQueues, SqlQueueProperties properties) {
		return new ConfiguredQueuesCheck(unknownQueues, properties.getQueues().keySet());
	}

	@Bean
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	JobQueue jobQueue(JobStore store, PayloadCodec codec, HandlerRegistry handlers, RetryPolicy retryPolicy,
			ObjectProvider<JobListener> listeners, JobAwaiter awaiter, ObjectProvider<JobObservations> observations,
			UnknownHandlers unknownHandlers) {
		return new DefaultJobQueue(store, codec, handlers, retryPolicy, listener(listeners), awaiter,
				observations(observations), unknownHandlers);
	}

	/** The {@link JobObservations} bean, or none (no Micrometer Tracing, or switched off). */
	static JobObservations observations(ObjectProvider<JobObservations> observations) {
		return observations.getIfUnique(() -> JobObservations.NONE);
	}

	/** Completes awaits; a {@link JobListener}, so it hears of this instance's finished jobs. */
	@Bean
	@ConditionalOnMissingBean
	JobAwaiter sqlqueueJobAwaiter(JobStore store, PayloadCodec codec, SqlQueueProperties properties) {
		return new JobAwaiter(store, codec, properties.getAwait().getMaxPollInterval());
	}

	/**
	 * On PostgreSQL, listens for what other instances announce: enqueues (which wake the
	 * Manager), finished jobs (for the awaiter) and cancels of running jobs (for the Manager).
	 */
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnClass(name = "org.postgresql.PGConnection")
	@DependsOnDatabaseInitialization
	@Nullable PostgresNotifications sqlqueueNotifications(DataSource dataSource, Dialect dialect,
			SqlQueueProperties properties, JobAwaiter awaiter, ObjectProvider<Manager> manager) {
		String channel = notifyChannel(dialect, properties);
		if (channel == null) {
			return null;
		}
		return new PostgresNotifications(dataSource, channel, new QueueEvents() {
			@Override
			public void newWork(Set<String> queues) {
				manager.ifUnique((running) -> running.wakeUp(queues));
			}

			@Override
			public void finished(Set<Long> jobIds) {
				awaiter.finished(jobIds);
			}

			@Override
			public void cancelRequested(Set<Long> jobIds) {
				manager.ifUnique((running) -> running.cancelRequested(jobIds));
			}
		}, new SimpleAsyncTaskExecutor("sqlqueue-listen-"));
	}

	/** The application's {@link JobListener} beans (such as the metrics) as one. */
	static JobListener listener(ObjectProvider<JobListener> listeners) {
		return JobListener.all(listeners.orderedStream().toList());
	}

	/**
	 * The job store's own flow store, the one its claims of limited queues use: not
	 * replaceable on its own (replace the {@link JobStore}), so that flow control and the
	 * claim never read different stores.
	 */
	@Bean
	FlowStore sqlqueueFlowStore(JobStore store) {
		return store.flows();
	}

	/** The limits of queues and of their concurrency keys, across every instance. */
	@Bean
	@ConditionalOnMissingBean
	FlowControl sqlqueueFlowControl(FlowStore store, SqlQueueProperties properties) {
		// The declarations are kept at each beat of the instance's row: a limit whose
		// declaring instances all missed three beats is declared by no live instance.
		ManagerProperties manager = properties.getManager();
		Duration heartbeat = manager.getHeartbeatInterval();
		return new DefaultFlowControl(store)
			.withDeclarationRefresh((heartbeat != null) ? heartbeat : manager.getLeaseDuration().dividedBy(3));
	}

	/** The limits of {@code sqlqueue.queues.*}, checked. */
	static List<LimitDefinition> propertyLimits(SqlQueueProperties properties) {
		List<LimitDefinition> limits = new ArrayList<>();
		properties.getQueues().forEach((queue, settings) -> {
			String prefix = "sqlqueue.queues." + queue;
			if (settings.getGlobalConcurrency() != null || settings.getRateLimit() != null) {
				limits.add(LimitDeclarer.definition("Limit of " + prefix, queue, LimitRow.QUEUE,
						settings.getGlobalConcurrency(), settings.getRateLimit()));
			}
			List<KeyLimitProperties> keyLimits = settings.getKeyLimits();
			for (int i = 0; i < keyLimits.size(); i++) {
				KeyLimitProperties keyLimit = keyLimits.get(i);
				String what = "Limit " + prefix + ".key-limits[" + i + "]";
				if (keyLimit.getKeys() == null || keyLimit.getKeys().isBlank()) {
					throw new IllegalStateException(what + " is invalid: it names no keys (a key, a prefix "
							+ "ending in '*', or '*')");
				}
				limits.add(LimitDeclarer.definition(what, queue, keyLimit.getKeys(), keyLimit.getConcurrency(),
						keyLimit.getRateLimit()));
			}
		});
		return limits;
	}

	/**
	 * The fair turns of {@code sqlqueue.queues.*}, checked, by queue; a queue whose
	 * {@code fair} is false maps to {@code null} (configured unfair, over any annotation).
	 */
	static Map<String, @Nullable Fairness> propertyFairness(SqlQueueProperties properties) {
		Map<String, @Nullable Fairness> fairness = new LinkedHashMap<>();
		properties.getQueues().forEach((queue, settings) -> {
			String prefix = "sqlqueue.queues." + queue;
			Map<String, Integer> weights = settings.getFairWeights();
			if (Boolean.FALSE.equals(settings.getFair())) {
				if (!weights.isEmpty()) {
					throw new IllegalStateException(prefix + ".fair-weights is invalid: " + prefix
							+ ".fair is false");
				}
				fairness.put(queue, null);
			}
			else if (Boolean.TRUE.equals(settings.getFair()) || !weights.isEmpty()) {
				try {
					Names.requireQueue(queue);
					fairness.put(queue, new Fairness(weights));
				}
				catch (IllegalArgumentException ex) {
					throw new IllegalStateException(prefix + ".fair-weights is invalid: " + ex.getMessage(), ex);
				}
			}
		});
		return fairness;
	}

	/** The job store's own schedule store: not replaceable on its own (replace the {@link JobStore}). */
	@Bean
	ScheduleStore sqlqueueScheduleStore(JobStore store) {
		return store.schedules();
	}

	@Bean
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	Schedules sqlqueueSchedules(ScheduleStore store, JobQueue jobQueue, HandlerRegistry handlers,
			ObjectProvider<JobListener> listeners, SqlQueueProperties properties) {
		// The declarations are kept at the cadence of the instance's row: a schedule whose
		// declaring instances all missed three beats is declared by no live instance.
		ManagerProperties manager = properties.getManager();
		Duration heartbeat = manager.getHeartbeatInterval();
		return new DefaultSchedules(store, jobQueue, handlers, listener(listeners))
			.withDeclarationRefresh((heartbeat != null) ? heartbeat : manager.getLeaseDuration().dividedBy(3));
	}

	/**
	 * The reads that tolerate staleness: on the {@link SqlQueueReadDataSource @SqlQueueReadDataSource}
	 * DataSource where the application has one (the same dialect and schema as the queue's),
	 * else on the job store. Not a {@link JobStore}: nothing that writes can reach the replica.
	 */
	@Bean
	@ConditionalOnMissingBean
	ReadStore sqlqueueReadStore(JobStore store, Dialect dialect, SqlQueueProperties properties,
			@SqlQueueReadDataSource ObjectProvider<DataSource> readDataSource) {
		DataSource replica = readDataSource.getIfAvailable();
		return (replica != null) ? ReadStore.replica(replica, dialect, properties.getJdbc().getSchema())
				: ReadStore.of(store);
	}

	/** The operator actions, which the endpoint, the dashboard and application code call. */
	@Bean
	@ConditionalOnMissingBean
	QueueAdmin sqlqueueQueueAdmin(JobQueue jobs, JobStore store, ReadStore reads, ObjectProvider<Manager> manager,
			ObjectProvider<Schedules> schedules, ObjectProvider<FlowControl> flowControl,
			ObjectProvider<TableHealthMonitor> tableHealth) {
		return new DefaultQueueAdmin(jobs, store, reads, manager.getIfUnique(), schedules.getIfUnique(),
				flowControl.getIfUnique(), tableHealth.getIfUnique());
	}

	/** The enabled schedules of {@code sqlqueue.schedules.*}, checked. */
	static List<ScheduleDefinition> propertySchedules(SqlQueueProperties properties) {
		List<ScheduleDefinition> definitions = new ArrayList<>();
		properties.getSchedules().forEach((name, schedule) -> {
			if (schedule.isEnabled()) {
				definitions.add(ScheduleDeclarer.definition(
						"Schedule '" + name + "' (sqlqueue.schedules." + name + ")", name, schedule.getHandler(),
						schedule.getQueue(), schedule.getPayload(), schedule.getCron(), schedule.getZone(),
						schedule.getEvery(), schedule.getMisfire(), schedule.getOverlap()));
			}
		});
		return definitions;
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(prefix = "sqlqueue.jdbc", name = "migrate", matchIfMissing = true)
	QueueSchemaInitializer sqlqueueSchemaInitializer(DataSource dataSource, Dialect dialect,
			SqlQueueProperties properties) {
		return new QueueSchemaInitializer(dataSource, dialect, properties.getJdbc().getSchema());
	}

	/** The settings of the Manager from the properties. */
	static ManagerSettings managerSettings(SqlQueueProperties properties, RetryPolicy retryPolicy) {
		ManagerProperties manager = properties.getManager();
		requireBatchRange("sqlqueue.manager.batch-size", manager.getBatchSize(), 1);
		if (manager.getPrefetch() != null) {
			requireBatchRange("sqlqueue.manager.prefetch", manager.getPrefetch(), 0);
		}
		ManagerSettings.Builder settings = ManagerSettings.builder();
		PropertyMapper map = PropertyMapper.get();
		map.from(manager::getWorkerId).to(settings::workerId);
		map.from(manager::getPollInterval).to(settings::pollInterval);
		map.from(manager::getBatchSize).to(settings::batchSize);
		map.from(manager::getPrefetch).to(settings::prefetch);
		map.from(manager.getCompletion()::getLinger).to(settings::completionLinger);
		map.from(manager.getCompletion()::getBatchSize).to(settings::completionBatchSize);
		map.from(manager::getLeaseDuration).to(settings::leaseDuration);
		map.from(manager::getHeartbeatInterval).to(settings::heartbeatInterval);
		map.from(manager::getShutdownTimeout).to(settings::shutdownTimeout);
		map.from(manager::getHandlerTimeout).to(settings::handlerTimeout);
		map.from(manager::getConcurrency).to(settings::defaultConcurrency);
		map.from(properties.getRetention()::getInstances).to(settings::instanceRetention);
		map.from(manager::getResultMaxSize)
			.as((size) -> (int) Math.min(Integer.MAX_VALUE, size.toBytes()))
			.to(settings::resultMaxSize);
		Map<String, Integer> concurrency = new LinkedHashMap<>();
		properties.getQueues().forEach((queue, settingsOfQueue) -> {
			if (settingsOfQueue.getConcurrency() != null) {
				concurrency.put(queue, settingsOfQueue.getConcurrency());
			}
		});
		return settings.concurrency(concurrency)
			.queues(properties.getQueues().keySet())
			.retryPolicy(retryPolicy)
			.build();
	}

	/** Checks a batch size or prefetch here, where the message can name the property. */
	private static void requireBatchRange(String property, int value, int least) {
		if (value < least || value > ManagerSettings.MAX_BATCH_SIZE) {
			throw new IllegalStateException(property + " must be " + least + " to " + ManagerSettings.MAX_BATCH_SIZE
					+ ", not " + value + ": a claim of a queue with limits binds up to twice as many parameters, "
					+ "and past that some databases refuse the statement");
		}
	}

	/** The workers the Manager's lanes need at most: the handlers' queues and the configured ones. */
	/** The running Manager's settings, else those the properties make. */
	static ManagerSettings runningSettings(ObjectProvider<Manager> manager, SqlQueueProperties properties,
			RetryPolicy retryPolicy) {
		Manager running = manager.getIfUnique();
		return (running != null) ? running.settings() : managerSettings(properties, retryPolicy);
	}

	static int totalWorkers(HandlerRegistry handlers, ManagerSettings settings) {
		return Math.max(1, Manager.servedQueues(handlers, settings).stream().mapToInt(settings::concurrencyOf).sum());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(prefix = "sqlqueue.manager", name = "enabled", matchIfMissing = true)
	static class ManagerConfiguration {

		@Bean(name = TASK_SCHEDULER_BEAN_NAME, defaultCandidate = false)
		@ConditionalOnMissingBean(name = TASK_SCHEDULER_BEAN_NAME)
		TaskScheduler sqlqueueTaskScheduler(Environment environment) {
			if (Threading.VIRTUAL.isActive(environment)) {
				LateShutdownTaskScheduler scheduler = new LateShutdownTaskScheduler();
				scheduler.setVirtualThreads(true);
				scheduler.setThreadNamePrefix("sqlqueue-scheduler-");
				return scheduler;
			}
			ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
			// The poll loop and the heartbeat have threads of their own (see Manager). Here: completion
			// flushes, the timeout sweep, cancels the heartbeat found, and the maintenance passes
			// (reaper, pruner, counts, vacuum, table health, schedules). A thread for each, so that one waiting on a
			// caller's lock (up to the statements' lock timeout) keeps no other from running.
			scheduler.setPoolSize(SCHEDULER_THREADS);
			scheduler.setThreadNamePrefix("sqlqueue-scheduler-");
			scheduler.setAcceptTasksAfterContextClose(true);
			return scheduler;
		}

		@Bean
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		Manager sqlqueueManager(JobStore store, HandlerRegistry handlers, PayloadCodec codec, RetryPolicy retryPolicy,
				JobQueue jobQueue, SqlQueueProperties properties,
				@Qualifier(TASK_SCHEDULER_BEAN_NAME) TaskScheduler scheduler,
				@Qualifier(WORKER_EXECUTOR_BEAN_NAME) Executor workers, ObjectProvider<JobListener> listeners,
				ObjectProvider<JobObservations> observations, ObjectProvider<FlowControl> flowControl) {
			Manager manager = new Manager(store, handlers, codec, managerSettings(properties, retryPolicy), scheduler,
					workers, listener(listeners), observations(observations));
			jobQueue.addEnqueueListener(manager::wakeUp);
			jobQueue.addCancelListener(manager::cancelRequested);
			flowControl.ifUnique((limits) -> {
				limits.addChangeListener(manager::wakeUp);
				if (limits instanceof DefaultFlowControl declared) {
					manager.alsoAtEachBeat(declared::keepDeclarations);
				}
			});
			return manager;
		}

		@Bean
		PoolHeadroom sqlqueuePoolHeadroom(DataSource dataSource, Dialect dialect, HandlerRegistry handlers,
				ObjectProvider<Manager> manager, SqlQueueProperties properties, RetryPolicy retryPolicy) {
			return new PoolHeadroom(dataSource, handlers, () -> runningSettings(manager, properties, retryPolicy),
					notifyChannel(dialect, properties) != null);
		}

		/**
		 * Declares the limits and fair turns of the properties and of {@code @JobHandler(concurrencyPerKey,
		 * ratePerKey, fair, fairWeights)} where the Manager runs, as the schedules are.
		 */
		@Bean
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		LimitDeclarer sqlqueueLimitDeclarer(FlowControl flowControl, SqlQueueProperties properties,
				ObjectProvider<JobHandlerBeanPostProcessor> handlerPostProcessor, ObjectProvider<Manager> manager) {
			List<LimitDefinition> fromProperties = propertyLimits(properties);
			return new LimitDeclarer(flowControl, fromProperties, () -> {
				JobHandlerBeanPostProcessor processor = handlerPostProcessor.getIfUnique();
				return (processor != null) ? processor.keyLimits() : List.of();
			}, () -> {
				Manager served = manager.getIfUnique();
				return (served != null) ? served.servedQueues() : Set.of();
			}).withFairness(propertyFairness(properties), () -> {
				JobHandlerBeanPostProcessor processor = handlerPostProcessor.getIfUnique();
				return (processor != null) ? processor.fairness() : Map.of();
			});
		}

		@Bean
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		Vacuumer sqlqueueVacuumer(JobStore store, SqlQueueProperties properties,
				@Qualifier(TASK_SCHEDULER_BEAN_NAME) TaskScheduler scheduler) {
			return new Vacuumer(store, scheduler, properties.getMaintenance().getVacuumInterval());
		}

		@Bean
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		Reaper sqlqueueReaper(JobStore store, SqlQueueProperties properties,
				@Qualifier(TASK_SCHEDULER_BEAN_NAME) TaskScheduler scheduler, ObjectProvider<JobListener> listeners) {
			return new Reaper(store, scheduler, properties.getMaintenance().getReaperInterval(),
					properties.getRetry().getMaxCrashes(), listener(listeners));
		}

		@Bean
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		ScheduleFirer sqlqueueScheduleFirer(Schedules schedules, SqlQueueProperties properties,
				@Qualifier(TASK_SCHEDULER_BEAN_NAME) TaskScheduler scheduler) {
			return new ScheduleFirer(schedules, scheduler, properties.getMaintenance().getScheduleInterval());
		}

		/**
		 * Declares the schedules of the properties and of {@code @Recurring} where the Manager
		 * runs (an instance that only enqueues may lack the handlers, and would orphan them).
		 */
		@Bean
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		ScheduleDeclarer sqlqueueScheduleDeclarer(Schedules schedules, SqlQueueProperties properties,
				ObjectProvider<JobHandlerBeanPostProcessor> handlerPostProcessor) {
			List<ScheduleDefinition> fromProperties = propertySchedules(properties);
			return new ScheduleDeclarer(schedules, fromProperties, () -> {
				JobHandlerBeanPostProcessor processor = handlerPostProcessor.getIfUnique();
				return (processor != null) ? processor.recurringSchedules() : List.of();
			});
		}

		@Bean
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		QueueStats sqlqueueQueueStats(JobStore store, SqlQueueProperties properties,
				@Qualifier(TASK_SCHEDULER_BEAN_NAME) TaskScheduler scheduler, ObjectProvider<FlowControl> flowControl,
				ObjectProvider<Manager> manager) {
			// The Manager's id takes the cluster's turns to count; without a Manager this instance counts alone.
			Manager counter = manager.getIfUnique();
			return new NotifyingQueueStats(store, scheduler, properties.getMaintenance().getStatsInterval(),
					flowControl.getIfUnique(), (counter != null) ? counter.settings().workerId() : null);
		}

		@Bean
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		TableHealthMonitor sqlqueueTableHealthMonitor(JobStore store, SqlQueueProperties properties,
				@Qualifier(TASK_SCHEDULER_BEAN_NAME) TaskScheduler scheduler) {
			return new TableHealthMonitor(store, scheduler, properties.getMaintenance().getTableHealthInterval());
		}

		/** Asks the replica how far behind it is, for the gauge; schedules nothing without one. */
		@Bean
		@ConditionalOnMissingBean
		ReplicaLagMonitor sqlqueueReplicaLagMonitor(ReadStore reads, SqlQueueProperties properties,
				@Qualifier(TASK_SCHEDULER_BEAN_NAME) TaskScheduler scheduler) {
			return new ReplicaLagMonitor(reads, scheduler, properties.getMaintenance().getStatsInterval());
		}

		@Bean
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		Pruner sqlqueuePruner(JobStore store, SqlQueueProperties properties,
				@Qualifier(TASK_SCHEDULER_BEAN_NAME) TaskScheduler scheduler) {
			SqlQueueProperties.Retention retention = properties.getRetention();
			return new Pruner(store, scheduler, properties.getMaintenance().getPrunerInterval(),
					retention.getSucceeded(), retention.getCancelled(), retention.getFailed(), retention.getAudit());
		}

	}

	/**
	 * Observations of enqueues and attempts where Micrometer Tracing is on the class path and
	 * the application has an {@link ObservationRegistry}: the enqueue stores the trace context
	 * with its job, and each attempt runs as its child. Without tracing nothing is observed
	 * and nothing extra stored, so the queue's meters stay as they are.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { "io.micrometer.observation.ObservationRegistry", "io.micrometer.tracing.Tracer" })
	@ConditionalOnProperty(prefix = "sqlqueue.observations", name = "enabled", matchIfMissing = true)
	static class ObservationConfiguration {

		@Bean
		@ConditionalOnMissingBean
		JobObservations sqlqueueJobObservations(ObjectProvider<ObservationRegistry> registry,
				ObjectProvider<JobEnqueueObservationConvention> enqueueConvention,
				ObjectProvider<JobAttemptObservationConvention> attemptConvention) {
			ObservationRegistry observationRegistry = registry.getIfUnique();
			if (observationRegistry == null) {
				return JobObservations.NONE;
			}
			return new MicrometerJobObservations(observationRegistry, enqueueConvention.getIfUnique(),
					attemptConvention.getIfUnique());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(prefix = "sqlqueue.manager", name = "enabled", matchIfMissing = true)
	@ConditionalOnMissingBean(name = WORKER_EXECUTOR_BEAN_NAME)
	static class WorkerExecutorConfiguration {

		@Bean(name = WORKER_EXECUTOR_BEAN_NAME, defaultCandidate = false)
		Executor sqlqueueWorkerExecutor(Environment environment, SqlQueueProperties properties,
				HandlerRegistry handlers, RetryPolicy retryPolicy) {
			if (Threading.VIRTUAL.isActive(environment)) {
				SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("sqlqueue-worker-");
				executor.setVirtualThreads(true);
				return executor;
			}
			int workers = totalWorkers(handlers, managerSettings(properties, retryPolicy));
			ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
			executor.setCorePoolSize(workers);
			executor.setMaxPoolSize(workers);
			executor.setThreadNamePrefix("sqlqueue-worker-");
			executor.setAcceptTasksAfterContextClose(true);
			return executor;
		}

		@Bean
		WorkerPoolSizer sqlqueueWorkerPoolSizer(@Qualifier(WORKER_EXECUTOR_BEAN_NAME) Executor executor,
				HandlerRegistry handlers, ObjectProvider<Manager> manager, SqlQueueProperties properties,
				RetryPolicy retryPolicy) {
			return new WorkerPoolSizer(executor, handlers, () -> runningSettings(manager, properties, retryPolicy));
		}


	}

}
