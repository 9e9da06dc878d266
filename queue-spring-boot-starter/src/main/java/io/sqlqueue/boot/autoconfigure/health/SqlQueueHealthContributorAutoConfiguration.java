package io.sqlqueue.boot.autoconfigure.health;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;

import io.sqlqueue.boot.autoconfigure.NotifyingQueueStats;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.boot.autoconfigure.SqlQueueProperties;
import io.sqlqueue.boot.health.BehindSchedules;
import io.sqlqueue.boot.health.SqlQueueHealthIndicator;
import io.sqlqueue.internal.maintenance.QueueStats;
import io.sqlqueue.internal.maintenance.ScheduleFirer;
import io.sqlqueue.internal.maintenance.TableHealthMonitor;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.ScheduleStore;
import io.sqlqueue.schedule.Schedules;

/**
 * Auto-configuration of sqlqueue's health indicator (health key {@code sqlqueue}), where
 * this instance counts its jobs ({@link QueueStats}, with the Manager).
 */
@AutoConfiguration(after = SqlQueueAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean({ QueueStats.class, SqlQueueProperties.class })
@ConditionalOnEnabledHealthIndicator("sqlqueue")
@EnableConfigurationProperties(SqlQueueHealthIndicatorProperties.class)
public final class SqlQueueHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "sqlqueueHealthIndicator")
	SqlQueueHealthIndicator sqlqueueHealthIndicator(QueueStats stats, ObjectProvider<Manager> manager,
			SqlQueueHealthIndicatorProperties health, ObjectProvider<Schedules> schedules,
			ObjectProvider<ScheduleStore> scheduleStore, ObjectProvider<ScheduleFirer> firer,
			ObjectProvider<TableHealthMonitor> tableHealth) {
		BehindSchedules behind = null;
		Schedules scheduleBean = schedules.getIfUnique();
		ScheduleStore storeBean = scheduleStore.getIfUnique();
		if (scheduleBean != null && storeBean != null && stats instanceof NotifyingQueueStats notifying) {
			ScheduleFirer firerBean = firer.getIfUnique();
			BehindSchedules read = (firerBean != null)
					? new BehindSchedules(scheduleBean, storeBean, firerBean::hasPassed)
					: new BehindSchedules(scheduleBean, storeBean);
			notifying.subscribe((snapshot) -> read.refresh());
			behind = read;
		}
		TableHealthMonitor monitor = tableHealth.getIfUnique();
		SqlQueueHealthIndicator.Horizon horizon = (monitor != null) ? new SqlQueueHealthIndicator.Horizon(monitor,
				health.getMaxHorizonAge(), new Status(health.getHorizonStatus())) : null;
		return new SqlQueueHealthIndicator(stats, manager.getIfUnique(), health.getMaxDueAge(),
				new Status(health.getStaleStatus()), behind, horizon, health.getMaxReadTime());
	}

}
