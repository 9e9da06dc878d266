package io.sqlqueue.testkit.autoconfigure;

import java.util.List;

import javax.sql.DataSource;

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
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.boot.autoconfigure.ManagerProperties;
import io.sqlqueue.boot.autoconfigure.SqlQueueProperties;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.maintenance.ScheduleFirer;
import io.sqlqueue.internal.manager.JobRunner;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.manager.ManagerSettings;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.QueueReset;
import io.sqlqueue.observation.JobObservations;
import io.sqlqueue.schedule.Schedules;
import io.sqlqueue.testkit.SqlQueueTester;

/**
 * The test kit, wherever {@code queue-test} is on the class path (add it with test scope):
 * the {@link Manager} does not start, so enqueued jobs wait until the test runs them with
 * the {@link SqlQueueTester} bean, and the {@link ScheduleFirer} does not start either, so
 * a schedule enqueues a job only when the test asks for one.
 * {@code sqlqueue.test.run-in-background=true} lets both start as in production (for
 * end-to-end tests); the tester works either way, and also where
 * {@code sqlqueue.manager.enabled=false}.
 * <p>
 * Ordered after {@link SqlQueueAutoConfiguration} (not before it), so that it backs off with
 * the queue ({@code sqlqueue.enabled=false}, no data source): the Manager is kept from
 * starting by a bean post-processor, not by replacing it (and so is the firer), so every other
 * bean of the queue (the reaper, the schedules' declaration, health, metrics) stays as the
 * application has it.
 * <p>
 * The context does not start where an instance that is not a test runs on the database
 * ({@link SqlQueueTester#requireADatabaseOfItsOwn()}).
 */
@AutoConfiguration(after = SqlQueueAutoConfiguration.class)
@ConditionalOnBean(JobQueue.class)
@EnableConfigurationProperties(SqlQueueTestProperties.class)
public final class SqlQueueTestAutoConfiguration {

	/**
	 * Keeps the Manager and the {@link ScheduleFirer} from starting unless
	 * {@code sqlqueue.test.run-in-background} is on: a schedule's tick would otherwise enqueue
	 * a job in whichever test runs when it falls, so that test's {@code runDue()} would run it.
	 */
	@Bean
	static BeanPostProcessor sqlqueueTestManagerStartup(Environment environment) {
		boolean runInBackground = environment.getProperty("sqlqueue.test.run-in-background", Boolean.class, false);
		return new BeanPostProcessor() {
			@Override
			public Object postProcessBeforeInitialization(Object bean, String beanName) {
				if (runInBackground) {
					if (bean instanceof SqlQueueProperties properties) {
						markAsTest(properties.getManager());
					}
					return bean;
				}
				if (bean instanceof Manager manager) {
					manager.setAutoStartup(false);
				}
				else if (bean instanceof ScheduleFirer firer) {
					firer.setAutoStartup(false);
				}
				return bean;
			}
		};
	}

	/**
	 * Gives the Manager that runs in the background a worker id that says it is a test, so the
	 * test kit of another test JVM on the same database does not take it for an application
	 * (see {@link SqlQueueTester#TEST_INSTANCE_SUFFIX}). The properties are bound by then: the
	 * binder is a post-processor that runs first.
	 */
	private static void markAsTest(ManagerProperties manager) {
		String workerId = (manager.getWorkerId() != null) ? manager.getWorkerId() : ManagerSettings.defaultWorkerId();
		if (!workerId.endsWith(SqlQueueTester.TEST_INSTANCE_SUFFIX)) {
			String marked = workerId + SqlQueueTester.TEST_INSTANCE_SUFFIX;
			manager.setWorkerId((marked.length() <= 128) ? marked : marked.substring(marked.length() - 128));
		}
	}

	@Bean
	@ConditionalOnMissingBean
	SqlQueueTester sqlqueueTester(DataSource dataSource, Dialect dialect, JobStore store, HandlerRegistry handlers,
			PayloadCodec codec, RetryPolicy retryPolicy, Schedules schedules, JobQueue jobs,
			SqlQueueProperties properties, ObjectProvider<JobListener> listeners,
			ObjectProvider<JobObservations> observations) {
		ManagerSettings.Builder settings = ManagerSettings.builder()
			.retryPolicy(retryPolicy)
			.leaseDuration(properties.getManager().getLeaseDuration())
			.resultMaxSize((int) Math.min(Integer.MAX_VALUE, properties.getManager().getResultMaxSize().toBytes()));
		if (properties.getManager().getWorkerId() != null) {
			settings.workerId(properties.getManager().getWorkerId() + "-test");
		}
		List<JobListener> all = listeners.orderedStream().toList();
		JobRunner runner = new JobRunner(store, handlers, codec, settings.build(), JobListener.all(all),
				observations.getIfUnique(() -> JobObservations.NONE));
		SqlQueueTester tester = new SqlQueueTester(store, handlers, codec, runner, schedules,
				new QueueReset(dataSource, dialect, properties.getJdbc().getSchema()), jobs);
		// Here, not at the first reset(): the schedules and limits are declared once every bean
		// is created, and a running application would fire a test's schedules in its database.
		tester.requireADatabaseOfItsOwn();
		return tester;
	}

}
