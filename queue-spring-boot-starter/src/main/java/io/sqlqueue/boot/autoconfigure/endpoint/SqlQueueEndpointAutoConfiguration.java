package io.sqlqueue.boot.autoconfigure.endpoint;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import io.sqlqueue.JobQueue;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.boot.actuate.endpoint.SqlQueueEndpoint;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.boot.autoconfigure.SqlQueueProperties;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.ReadStore;
import io.sqlqueue.schedule.Schedules;

/**
 * Auto-configuration of the {@code sqlqueue} Actuator endpoint. Like every endpoint, it
 * is reachable only as Actuator's exposure and access settings allow
 * ({@code management.endpoints.web.exposure.include=sqlqueue}).
 */
@AutoConfiguration(after = SqlQueueAutoConfiguration.class)
@ConditionalOnClass(ConditionalOnAvailableEndpoint.class)
@ConditionalOnAvailableEndpoint(SqlQueueEndpoint.class)
@EnableConfigurationProperties(SqlQueueEndpointProperties.class)
public final class SqlQueueEndpointAutoConfiguration {

	@Bean
	@ConditionalOnBean({ JobQueue.class, JobStore.class, ReadStore.class, SqlQueueProperties.class,
			QueueAdmin.class })
	@ConditionalOnMissingBean
	SqlQueueEndpoint sqlqueueEndpoint(JobQueue jobs, ReadStore reads, ObjectProvider<Manager> manager,
			SqlQueueEndpointProperties properties, ObjectProvider<Schedules> schedules,
			ObjectProvider<FlowControl> flowControl, QueueAdmin admin) {
		return new SqlQueueEndpoint(jobs, reads, manager.getIfUnique(), properties.isShowPayload(),
				schedules.getIfUnique(), flowControl.getIfUnique(), admin);
	}

}
