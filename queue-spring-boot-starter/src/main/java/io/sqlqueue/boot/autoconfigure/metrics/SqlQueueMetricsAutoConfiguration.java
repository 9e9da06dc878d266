package io.sqlqueue.boot.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.sqlqueue.JobQueue;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.boot.autoconfigure.SqlQueueProperties;
import io.sqlqueue.boot.metrics.SqlQueueMetrics;
import io.sqlqueue.internal.maintenance.QueueStats;
import io.sqlqueue.internal.maintenance.ReplicaLagMonitor;
import io.sqlqueue.internal.maintenance.TableHealthMonitor;
import io.sqlqueue.internal.manager.Manager;

/**
 * Auto-configuration of sqlqueue's Micrometer meters: {@link SqlQueueMetrics}, a
 * {@link io.micrometer.core.instrument.binder.MeterBinder} that Spring Boot binds to the
 * application's registry and a {@link io.sqlqueue.JobListener} that the queue tells what
 * it does.
 */
@AutoConfiguration(after = SqlQueueAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, JobQueue.class, SqlQueueProperties.class })
public final class SqlQueueMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	SqlQueueMetrics sqlqueueMetrics(ObjectProvider<Manager> manager, ObjectProvider<QueueStats> stats,
			ObjectProvider<TableHealthMonitor> tableHealth, ObjectProvider<ReplicaLagMonitor> replicaLag,
			SqlQueueProperties properties) {
		return new SqlQueueMetrics(manager::getIfUnique, stats::getIfUnique, tableHealth::getIfUnique,
				replicaLag::getIfUnique, properties.getMetrics().isPercentilesHistogram());
	}

}
