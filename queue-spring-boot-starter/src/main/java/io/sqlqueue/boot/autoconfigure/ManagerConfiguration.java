package io.sqlqueue.boot.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;

import javax.sql.DataSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobQueue;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.boot.flow.LimitDeclarer;
import io.sqlqueue.boot.handler.JobHandlerBeanPostProcessor;
import io.sqlqueue.boot.schedule.ScheduleDeclarer;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.LimitDefinition;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.internal.flow.DefaultFlowControl;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.maintenance.Pruner;
import io.sqlqueue.internal.maintenance.QueueStats;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.maintenance.ReplicaLagMonitor;
import io.sqlqueue.internal.maintenance.ScheduleFirer;
import io.sqlqueue.internal.maintenance.TableHealthMonitor;
import io.sqlqueue.internal.maintenance.Vacuumer;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.ReadStore;
import io.sqlqueue.observation.JobObservations;
import io.sqlqueue.schedule.ScheduleDefinition;
import io.sqlqueue.schedule.Schedules;

import static io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration.SCHEDULER_THREADS;
import static io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration.TASK_SCHEDULER_BEAN_NAME;
import static io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration.WORKER_EXECUTOR_BEAN_NAME;

/**
 * What runs jobs on this instance, where the Manager is enabled ({@code sqlqueue.manager.enabled}):
 * the Manager and its scheduler, the maintenance loops (reaper, pruner, vacuum, counts, table
 * health, replica lag, schedule firer), and the declarations of the limits and schedules that
 * the properties and the handlers name.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(prefix = "sqlqueue.manager", name = "enabled", matchIfMissing = true)
class ManagerConfiguration {

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
		Manager manager = new Manager(store, handlers, codec, PropertyManagerSettings.of(properties, retryPolicy),
				scheduler, workers, SharedWiring.listener(listeners),
				SharedWiring.observations(observations));
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
		return new PoolHeadroom(dataSource, handlers,
				() -> PropertyManagerSettings.running(manager, properties, retryPolicy),
				SharedWiring.notifyChannel(dialect, properties) != null);
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
		List<LimitDefinition> fromProperties = PropertyDeclarations.limits(properties);
		return new LimitDeclarer(flowControl, fromProperties, () -> {
			JobHandlerBeanPostProcessor processor = handlerPostProcessor.getIfUnique();
			return (processor != null) ? processor.keyLimits() : List.of();
		}, () -> {
			Manager served = manager.getIfUnique();
			return (served != null) ? served.servedQueues() : Set.of();
		}).withFairness(PropertyDeclarations.fairness(properties), () -> {
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
				properties.getRetry().getMaxCrashes(), SharedWiring.listener(listeners));
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
		List<ScheduleDefinition> fromProperties = PropertyDeclarations.schedules(properties);
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
