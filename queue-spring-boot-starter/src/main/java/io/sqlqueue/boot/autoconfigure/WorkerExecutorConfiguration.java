package io.sqlqueue.boot.autoconfigure;

import java.util.concurrent.Executor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.manager.ManagerSettings;

import static io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration.WORKER_EXECUTOR_BEAN_NAME;

/**
 * The executor whose threads run handlers, sized to the lanes the Manager serves, where the
 * Manager is enabled and the application has none of that name.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(prefix = "sqlqueue.manager", name = "enabled", matchIfMissing = true)
@ConditionalOnMissingBean(name = WORKER_EXECUTOR_BEAN_NAME)
class WorkerExecutorConfiguration {

	@Bean(name = WORKER_EXECUTOR_BEAN_NAME, defaultCandidate = false)
	Executor sqlqueueWorkerExecutor(Environment environment, SqlQueueProperties properties,
			HandlerRegistry handlers, RetryPolicy retryPolicy) {
		if (Threading.VIRTUAL.isActive(environment)) {
			SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("sqlqueue-worker-");
			executor.setVirtualThreads(true);
			return executor;
		}
		ManagerSettings settings = PropertyManagerSettings.of(properties, retryPolicy);
		int workers = PropertyManagerSettings.totalWorkers(handlers, settings);
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
		return new WorkerPoolSizer(executor, handlers,
				() -> PropertyManagerSettings.running(manager, properties, retryPolicy));
	}

}
