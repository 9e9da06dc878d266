package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobQueue;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.internal.flow.DefaultFlowControl;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.schedule.DefaultSchedules;
import io.sqlqueue.internal.store.FlowStore;
import io.sqlqueue.internal.store.ScheduleStore;
import io.sqlqueue.schedule.Schedules;

/**
 * What every instance declares and reads across the cluster: the limits of queues and of
 * their concurrency keys ({@link FlowControl}) and the recurring jobs ({@link Schedules}).
 */
@Configuration(proxyBeanMethods = false)
class LimitsAndSchedulesConfiguration {

	/** The limits of queues and of their concurrency keys, across every instance. */
	@Bean
	@ConditionalOnMissingBean
	FlowControl sqlqueueFlowControl(FlowStore store, SqlQueueProperties properties) {
		return new DefaultFlowControl(store).withDeclarationRefresh(declarationRefresh(properties));
	}

	@Bean
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	Schedules sqlqueueSchedules(ScheduleStore store, JobQueue jobQueue, HandlerRegistry handlers,
			ObjectProvider<JobListener> listeners, SqlQueueProperties properties) {
		return new DefaultSchedules(store, jobQueue, handlers, SharedWiring.listener(listeners))
			.withDeclarationRefresh(declarationRefresh(properties));
	}

	/**
	 * How often this instance keeps its declarations of limits and schedules: at each beat of
	 * its row, so that one whose declaring instances all missed three beats is declared by no
	 * live instance.
	 */
	private static Duration declarationRefresh(SqlQueueProperties properties) {
		ManagerProperties manager = properties.getManager();
		Duration heartbeat = manager.getHeartbeatInterval();
		return (heartbeat != null) ? heartbeat : manager.getLeaseDuration().dividedBy(3);
	}

}
