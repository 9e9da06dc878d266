package io.sqlqueue.boot.autoconfigure;

import java.util.Set;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobQueue;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.internal.DefaultJobQueue;
import io.sqlqueue.internal.admin.DefaultQueueAdmin;
import io.sqlqueue.internal.await.JobAwaiter;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.handler.UnknownHandlers;
import io.sqlqueue.internal.handler.UnknownQueues;
import io.sqlqueue.internal.maintenance.TableHealthMonitor;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.QueueEvents;
import io.sqlqueue.internal.store.ReadStore;
import io.sqlqueue.internal.store.postgresql.PostgresNotifications;
import io.sqlqueue.observation.JobObservations;
import io.sqlqueue.schedule.Schedules;

/**
 * The {@link JobQueue} and what an enqueue uses: the payload codec, the retry policy, the
 * handlers and the checks of unknown handlers and queues, the awaiter (and on PostgreSQL the
 * notifications across instances), and the operator actions.
 */
@Configuration(proxyBeanMethods = false)
class JobQueueConfiguration {

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
		return new DefaultJobQueue(store, codec, handlers, retryPolicy, SharedWiring.listener(listeners), awaiter,
				SharedWiring.observations(observations), unknownHandlers);
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
		String channel = SharedWiring.notifyChannel(dialect, properties);
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

	/** The operator actions, which the endpoint, the dashboard and application code call. */
	@Bean
	@ConditionalOnMissingBean
	QueueAdmin sqlqueueQueueAdmin(JobQueue jobs, JobStore store, ReadStore reads, ObjectProvider<Manager> manager,
			ObjectProvider<Schedules> schedules, ObjectProvider<FlowControl> flowControl,
			ObjectProvider<TableHealthMonitor> tableHealth) {
		return new DefaultQueueAdmin(jobs, store, reads, manager.getIfUnique(), schedules.getIfUnique(),
				flowControl.getIfUnique(), tableHealth.getIfUnique());
	}

}
