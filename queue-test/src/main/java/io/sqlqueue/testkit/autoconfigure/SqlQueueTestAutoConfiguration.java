package io.sqlqueue.testkit.autoconfigure;

import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import io.sqlqueue.JobListener;
import io.sqlqueue.JobQueue;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.boot.autoconfigure.SqlQueueProperties;
import io.sqlqueue.handler.HandlerRegistry;
import io.sqlqueue.handler.PayloadCodec;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.manager.JobRunner;
import io.sqlqueue.manager.Manager;
import io.sqlqueue.manager.ManagerSettings;
import io.sqlqueue.observation.JobObservations;
import io.sqlqueue.store.JobStore;
import io.sqlqueue.testkit.SqlQueueTester;

/**
 * The test kit, wherever {@code queue-test} is on the class path (add it with test scope):
 * the {@link Manager} does not start, so enqueued jobs wait until the test runs them with
 * the {@link SqlQueueTester} bean. {@code sqlqueue.test.run-in-background=true} lets the
 * Manager start as in production (for end-to-end tests); the tester works either way, and
 * also where {@code sqlqueue.manager.enabled=false}.
 * <p>
 * Ordered after {@link SqlQueueAutoConfiguration} (not before it), so that it backs off with
 * the queue ({@code sqlqueue.enabled=false}, no data source): the Manager is kept from
 * starting by a bean post-processor, not by replacing it, so every other bean of the queue
 * (the reaper, schedules, health, metrics) stays as the application has it.
 */
@AutoConfiguration(after = SqlQueueAutoConfiguration.class)
@ConditionalOnBean(JobQueue.class)
@EnableConfigurationProperties(SqlQueueTestProperties.class)
public final class SqlQueueTestAutoConfiguration {

	/** Keeps the Manager from starting unless {@code sqlqueue.test.run-in-background} is on. */
	@Bean
	static BeanPostProcessor sqlqueueTestManagerStartup(Environment environment) {
		boolean runInBackground = environment.getProperty("sqlqueue.test.run-in-background", Boolean.class, false);
		return new BeanPostProcessor() {
			@Override
			public Object postProcessBeforeInitialization(Object bean, String beanName) {
				if (bean instanceof Manager manager && !runInBackground) {
					manager.setAutoStartup(false);
				}
				return bean;
			}
		};
	}

	@Bean
	@ConditionalOnMissingBean
	SqlQueueTester sqlqueueTester(JobStore store, HandlerRegistry handlers, PayloadCodec codec, RetryPolicy retryPolicy,
			SqlQueueProperties properties, ObjectProvider<JobListener> listeners,
			ObjectProvider<JobObservations> observations) {
		ManagerSettings.Builder settings = ManagerSettings.builder()
			.retryPolicy(retryPolicy)
			.leaseDuration(properties.getLeaseDuration())
			.resultMaxSize((int) Math.min(Integer.MAX_VALUE, properties.getResultMaxSize().toBytes()));
		if (properties.getWorkerId() != null) {
			settings.workerId(properties.getWorkerId() + "-test");
		}
		List<JobListener> all = listeners.orderedStream().toList();
		JobRunner runner = new JobRunner(store, handlers, codec, settings.build(), JobListener.all(all),
				observations.getIfUnique(() -> JobObservations.NONE));
		return new SqlQueueTester(store, handlers, codec, runner);
	}

}
