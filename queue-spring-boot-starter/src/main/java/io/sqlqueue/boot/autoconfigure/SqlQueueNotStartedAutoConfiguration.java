package io.sqlqueue.boot.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

import io.sqlqueue.boot.diagnostics.JobHandlersWithoutQueueCheck;
import io.sqlqueue.boot.handler.JobHandlerBeanPostProcessor;

/**
 * Where {@link SqlQueueAutoConfiguration} backed off (no single {@code DataSource}) although
 * the queue is not switched off, fails the start of an application that has
 * {@code @JobHandler} methods, naming the missing piece, rather than leave its jobs waiting
 * for handlers that never run.
 */
@AutoConfiguration(after = SqlQueueAutoConfiguration.class)
@ConditionalOnProperty(prefix = "sqlqueue", name = "enabled", matchIfMissing = true)
@ConditionalOnMissingBean(JobHandlerBeanPostProcessor.class)
public final class SqlQueueNotStartedAutoConfiguration {

	@Bean
	static JobHandlersWithoutQueueCheck sqlqueueJobHandlersWithoutQueueCheck() {
		return new JobHandlersWithoutQueueCheck();
	}

}
