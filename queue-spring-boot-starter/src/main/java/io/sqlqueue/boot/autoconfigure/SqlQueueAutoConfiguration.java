package io.sqlqueue.boot.autoconfigure;

import javax.sql.DataSource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobQueue;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.boot.handler.JobHandlerBeanPostProcessor;
import io.sqlqueue.internal.await.JobAwaiter;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.maintenance.Pruner;
import io.sqlqueue.internal.maintenance.QueueStats;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.maintenance.ScheduleFirer;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.ReadStore;
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
 * <p>
 * The beans are declared by concern in the configurations this one imports: the database
 * ({@link StoreConfiguration}), the queue and what an enqueue uses
 * ({@link JobQueueConfiguration}), the limits and schedules every instance declares
 * ({@link LimitsAndSchedulesConfiguration}), what runs jobs here ({@link ManagerConfiguration},
 * {@link WorkerExecutorConfiguration}) and the observations ({@link ObservationConfiguration}).
 * Their conditions are evaluated only where this class's hold.
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
// The first three were nested here, and nested configurations are registered before the beans
// of the class around them: imported first, their beans keep the order they were registered in.
@Import({ ManagerConfiguration.class, ObservationConfiguration.class, WorkerExecutorConfiguration.class,
		StoreConfiguration.class, JobQueueConfiguration.class, LimitsAndSchedulesConfiguration.class,
		DatabaseInitializationDependencyConfigurer.class })
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

}
