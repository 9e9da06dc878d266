package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.core.task.TaskExecutor;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.util.unit.DataSize;

import io.sqlqueue.JobHandler;
import io.sqlqueue.JobListener;
import io.sqlqueue.JobOutcome;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobResult;
import io.sqlqueue.JobStatus;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.boot.schema.QueueSchemaInitializer;
import io.sqlqueue.handler.RetryPolicy;
import io.sqlqueue.internal.DefaultJobQueue;
import io.sqlqueue.internal.await.JobAwaiter;
import io.sqlqueue.internal.handler.HandlerRegistry;
import io.sqlqueue.internal.maintenance.Pruner;
import io.sqlqueue.internal.maintenance.QueueStats;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.maintenance.Vacuumer;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.manager.ManagerSettings;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.h2.H2Dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class SqlQueueAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"sqlqueue.manager.poll-interval=50ms", "sqlqueue.manager.shutdown-timeout=1s");

	@Test
	void backsOffWithoutDataSource() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SqlQueueAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(JobQueue.class)
				.doesNotHaveBean(SqlQueueProperties.class));
	}

	@Test
	void backsOffWhenDisabled() {
		this.runner.withPropertyValues("sqlqueue.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(DataSource.class)
				.doesNotHaveBean(JobQueue.class)
				.doesNotHaveBean(QueueSchemaInitializer.class)
				.doesNotHaveBean(Manager.class));
	}

	@Test
	void runsJobsByDefault() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(JobQueue.class)
				.hasSingleBean(JobStore.class)
				.hasSingleBean(PayloadCodec.class)
				.hasSingleBean(RetryPolicy.class)
				.hasSingleBean(HandlerRegistry.class)
				.hasSingleBean(QueueSchemaInitializer.class)
				.hasSingleBean(Manager.class)
				.hasSingleBean(Reaper.class)
				.hasBean(SqlQueueAutoConfiguration.TASK_SCHEDULER_BEAN_NAME)
				.hasBean(SqlQueueAutoConfiguration.WORKER_EXECUTOR_BEAN_NAME);
			assertThat(context.getBean(Dialect.class)).isInstanceOf(H2Dialect.class);
			assertThat(context.getBean(Manager.class).isRunning()).isFalse(); // no handlers: claims nothing
			assertThat(context.getBean(Reaper.class).isRunning()).isTrue();
			assertThat(context.getBean(SqlQueueAutoConfiguration.TASK_SCHEDULER_BEAN_NAME))
				.isInstanceOf(ThreadPoolTaskScheduler.class);
		});
	}

	@Test
	void vacuumsNothingOnADatabaseThatReclaimsSpaceItself() {
		this.runner.withPropertyValues("sqlqueue.maintenance.vacuum-interval=5s").run((context) -> {
			Vacuumer vacuumer = context.getBean(Vacuumer.class);
			assertThat(vacuumer).extracting("interval").isEqualTo(Duration.ofSeconds(5));
			assertThat(vacuumer.isRunning()).isFalse();
		});
	}

	@Test
	void countsAndPrunesWhereTheManagerRuns() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(QueueStats.class).hasSingleBean(Pruner.class);
			assertThat(context.getBean(QueueStats.class)).isInstanceOf(NotifyingQueueStats.class)
				.extracting("interval")
				.isEqualTo(Duration.ofSeconds(30));
			assertThat(context.getBean(QueueStats.class).isRunning()).isTrue();
			Pruner pruner = context.getBean(Pruner.class);
			assertThat(pruner).extracting("retention")
				.isEqualTo(Map.of(JobStatus.SUCCEEDED, Duration.ofDays(7), JobStatus.CANCELLED, Duration.ofDays(7),
						JobStatus.FAILED, Duration.ofDays(30)));
			assertThat(pruner).extracting("interval").isEqualTo(Duration.ofMinutes(10));
			assertThat(pruner).extracting("scheduler")
				.isSameAs(context.getBean(SqlQueueAutoConfiguration.TASK_SCHEDULER_BEAN_NAME));
			assertThat(pruner.isRunning()).isTrue();
		});
	}

	@Test
	void countsForTheClusterAsTheManagersInstance() {
		this.runner.withPropertyValues("sqlqueue.manager.worker-id=node-7").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(QueueStats.class).refresh().countedBy()).isEqualTo("node-7");
			assertThat(context.getBean(JobStore.class).cluster().sharedCounts().countedBy()).isEqualTo("node-7");
		});
	}

	@Test
	void bindsRetentionAndStatsInterval() {
		this.runner
			.withPropertyValues("sqlqueue.retention.succeeded=1h", "sqlqueue.retention.cancelled=0",
					"sqlqueue.retention.failed=90d", "sqlqueue.maintenance.pruner-interval=1m",
					"sqlqueue.maintenance.stats-interval=5s")
			.run((context) -> {
				Pruner pruner = context.getBean(Pruner.class);
				assertThat(pruner).extracting("retention")
					.isEqualTo(Map.of(JobStatus.SUCCEEDED, Duration.ofHours(1), JobStatus.FAILED, Duration.ofDays(90)));
				assertThat(pruner).extracting("interval").isEqualTo(Duration.ofMinutes(1));
				assertThat(context.getBean(QueueStats.class)).extracting("interval").isEqualTo(Duration.ofSeconds(5));
			});
	}

	@Test
	void keepsFinishedJobsForeverWhenEveryRetentionIsZero() {
		this.runner
			.withPropertyValues("sqlqueue.retention.succeeded=0", "sqlqueue.retention.cancelled=0",
					"sqlqueue.retention.failed=0", "sqlqueue.retention.audit=0")
			.run((context) -> assertThat(context.getBean(Pruner.class).isRunning()).isFalse());
	}

	@Test
	void keepsAttemptsAndTheAuditLogAndPrunesTheLogAfterThirtyDaysByDefault() {
		this.runner.run((context) -> {
			JobStore store = context.getBean(JobStore.class);
			assertThat(store.attempts().isEnabled()).isTrue();
			assertThat(store.audit().isEnabled()).isTrue();
			assertThat(context.getBean(Pruner.class)).extracting("auditRetention").isEqualTo(Duration.ofDays(30));
		});
	}

	@Test
	void bindsTheHistorySwitchesAndTheAuditRetention() {
		this.runner
			.withPropertyValues("sqlqueue.history.attempts=false", "sqlqueue.history.audit=false",
					"sqlqueue.retention.audit=7d", "sqlqueue.retention.succeeded=0", "sqlqueue.retention.cancelled=0",
					"sqlqueue.retention.failed=0")
			.run((context) -> {
				JobStore store = context.getBean(JobStore.class);
				assertThat(store.attempts().isEnabled()).isFalse();
				assertThat(store.audit().isEnabled()).isFalse();
				Pruner pruner = context.getBean(Pruner.class);
				assertThat(pruner).extracting("auditRetention").isEqualTo(Duration.ofDays(7));
				assertThat(pruner.isRunning()).as("the audit log alone has a retention").isTrue();
			});
	}

	@Test
	void tellsTheApplicationsJobListeners() {
		this.runner.withBean("first", RecordingListener.class)
			.withBean("second", RecordingListener.class)
			.withBean("greeter", JobHandlerRegistrationTests.Greeter.class)
			.run((context) -> {
				long id = context.getBean(JobQueue.class).enqueue("ping", null);
				for (RecordingListener listener : context.getBeansOfType(RecordingListener.class).values()) {
					assertThat(listener.events).contains("enqueued default ping 1");
					await()
						.atMost(Duration.ofSeconds(20))
						.untilAsserted(() -> assertThat(listener.events).contains("finished " + id + " succeeded"));
				}
			});
	}

	@Test
	void awaitsJobsThisInstanceFinishesAsItFinishesThem() {
		// Reads only when a job is awaited, then not for an hour: the Manager must tell the awaiter.
		this.runner.withPropertyValues("sqlqueue.await.max-poll-interval=1h")
			.withBean("greeter", JobHandlerRegistrationTests.Greeter.class)
			.run((context) -> {
				JobQueue jobs = context.getBean(JobQueue.class);
				assertThat(context.getBean(JobAwaiter.class)).extracting("maxPollMillis").isEqualTo(3_600_000L);
				long id = jobs.enqueue("greet", new JobHandlerRegistrationTests.Greeting("Ada"));
				JobResult result = jobs.await(id, Duration.ofSeconds(20));
				assertThat(result.result(String.class)).isEqualTo("Hello, Ada (attempt 1)");
			});
	}

	@Test
	void cancelsARunningJobOfThisInstanceAtOnce() {
		// The default heartbeat (20 s) is far off: the Manager must hear the cancel from the queue.
		this.runner.withBean("sleeper", Sleeper.class).run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			long id = jobs.enqueue("sleep", null);
			await().atMost(Duration.ofSeconds(20))
				.until(() -> jobs.find(id).map(JobRecord::status).orElseThrow() == JobStatus.RUNNING);
			assertThat(jobs.cancel(id)).isTrue();
			assertThat(jobs.await(id, Duration.ofSeconds(10)).status()).isEqualTo(JobStatus.CANCELLED);
			// The job is CANCELLED before its handler is interrupted: wait for the handler to see it.
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(context.getBean(Sleeper.class).interrupted).hasValue(1));
		});
	}

	@Test
	void onlyEnqueuesWhenTheManagerIsDisabled() {
		this.runner.withPropertyValues("sqlqueue.manager.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed()
				.doesNotHaveBean(Manager.class)
				.doesNotHaveBean(Reaper.class)
				.doesNotHaveBean(QueueStats.class)
				.doesNotHaveBean(Pruner.class)
				.doesNotHaveBean(SqlQueueAutoConfiguration.TASK_SCHEDULER_BEAN_NAME)
				.doesNotHaveBean(SqlQueueAutoConfiguration.WORKER_EXECUTOR_BEAN_NAME);
			JobQueue jobs = context.getBean(JobQueue.class);
			long id = jobs.enqueue("mail.welcome", Map.of("to", "ada@example.com"));
			assertThat(jobs.find(id)).hasValueSatisfying((job) -> {
				assertThat(job.queue()).isEqualTo(JobQueue.DEFAULT_QUEUE);
				assertThat(job.maxAttempts()).isEqualTo(10);
			});
		});
	}

	@Test
	void bindsProperties() {
		this.runner
			.withPropertyValues("sqlqueue.manager.worker-id=node-1", "sqlqueue.manager.poll-interval=250ms",
					"sqlqueue.manager.batch-size=5", "sqlqueue.manager.lease-duration=30s",
					"sqlqueue.manager.heartbeat-interval=4s", "sqlqueue.manager.handler-timeout=2m",
					"sqlqueue.manager.concurrency=3", "sqlqueue.queues.mail.concurrency=2",
					"sqlqueue.queues.bulk.concurrency=4",
					"sqlqueue.retry.max-attempts=4", "sqlqueue.retry.initial-backoff=1s",
					"sqlqueue.retry.multiplier=3", "sqlqueue.retry.max-backoff=10m", "sqlqueue.retry.jitter=0",
					"sqlqueue.payload-max-size=64KB", "sqlqueue.manager.result-max-size=32KB",
					"sqlqueue.jdbc.claim-method=compare-and-set", "sqlqueue.manager.prefetch=7",
					"sqlqueue.manager.completion.linger=5ms", "sqlqueue.manager.completion.batch-size=50",
					"sqlqueue.retry.max-crashes=5", "sqlqueue.await.max-poll-interval=3s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ManagerSettings settings = context.getBean(Manager.class).settings();
				assertThat(settings.workerId()).isEqualTo("node-1");
				assertThat(settings.pollInterval()).isEqualTo(Duration.ofMillis(250));
				assertThat(settings.batchSize()).isEqualTo(5);
				assertThat(settings.prefetch()).isEqualTo(7);
				assertThat(settings.completionLinger()).isEqualTo(Duration.ofMillis(5));
				assertThat(settings.completionBatchSize()).isEqualTo(50);
				assertThat(settings.leaseDuration()).isEqualTo(Duration.ofSeconds(30));
				assertThat(settings.heartbeatInterval()).isEqualTo(Duration.ofSeconds(4));
				assertThat(settings.handlerTimeout()).isEqualTo(Duration.ofMinutes(2));
				assertThat(settings.defaultConcurrency()).isEqualTo(3);
				assertThat(settings.concurrency()).isEqualTo(Map.of("mail", 2, "bulk", 4));
				assertThat(settings.queues()).containsExactlyInAnyOrder("mail", "bulk");
				assertThat(settings.retryPolicy())
					.isEqualTo(new RetryPolicy(4, Duration.ofSeconds(1), 3.0, Duration.ofMinutes(10), 0.0));
				assertThat(settings.resultMaxSize()).isEqualTo((int) DataSize.ofKilobytes(32).toBytes());
				assertThat(context.getBean(PayloadCodec.class).maxPayloadBytes())
					.isEqualTo((int) DataSize.ofKilobytes(64).toBytes());
				assertThat(context.getBean(JobStore.class).claimMethod()).isEqualTo(ClaimMethod.COMPARE_AND_SET);
				assertThat(context.getBean(Reaper.class)).extracting("maxCrashes").isEqualTo(5);
				assertThat(context.getBean(JobAwaiter.class)).extracting("maxPollMillis").isEqualTo(3_000L);
				ThreadPoolTaskExecutor workers = context.getBean(SqlQueueAutoConfiguration.WORKER_EXECUTOR_BEAN_NAME,
						ThreadPoolTaskExecutor.class);
				assertThat(workers.getCorePoolSize()).isEqualTo(2 + 4);
				assertThat(workers.getMaxPoolSize()).isEqualTo(2 + 4);
			});
	}

	@Test
	void prefetchesABatchByDefault() {
		this.runner.withPropertyValues("sqlqueue.manager.batch-size=40").run((context) -> {
			ManagerSettings settings = context.getBean(Manager.class).settings();
			assertThat(settings.prefetch()).isEqualTo(40);
			assertThat(settings.completionBatchSize()).isEqualTo(100);
		});
	}

	@Test
	void takesTheLargestBatchSizeAndPrefetch() {
		this.runner
			.withPropertyValues("sqlqueue.manager.batch-size=4096", "sqlqueue.manager.prefetch=4096",
					"sqlqueue.queues.default.global-concurrency=100")
			.withBean("greeter", JobHandlerRegistrationTests.Greeter.class)
			.run((context) -> {
				ManagerSettings settings = context.getBean(Manager.class).settings();
				assertThat(settings.batchSize()).isEqualTo(ManagerSettings.MAX_BATCH_SIZE);
				assertThat(settings.prefetch()).isEqualTo(ManagerSettings.MAX_BATCH_SIZE);
				JobQueue jobs = context.getBean(JobQueue.class);
				long id = jobs.enqueue("ping", null);
				assertThat(jobs.await(id, Duration.ofSeconds(20)).status()).isEqualTo(JobStatus.SUCCEEDED);
			});
	}

	@Test
	void failsToStartOnABatchSizeOrPrefetchAboveTheLargestNamingTheProperty() {
		this.runner.withPropertyValues("sqlqueue.manager.batch-size=40000")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("sqlqueue.manager.batch-size")
				.hasMessageContaining("40000")
				.hasMessageContaining("4096"));
		this.runner.withPropertyValues("sqlqueue.manager.prefetch=4097")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("sqlqueue.manager.prefetch")
				.hasMessageContaining("4097")
				.hasMessageContaining("4096"));
		this.runner.withPropertyValues("sqlqueue.manager.batch-size=0")
			.run((context) -> assertThat(context).getFailure().rootCause().hasMessageContaining("sqlqueue.manager.batch-size"));
	}

	@Test
	void beatsAThirdOfTheLeaseByDefault() {
		this.runner.withPropertyValues("sqlqueue.manager.lease-duration=30s")
			.run((context) -> assertThat(context.getBean(Manager.class).settings().heartbeatInterval())
				.isEqualTo(Duration.ofSeconds(10)));
	}

	@Test
	void failsOnInvalidSettings() {
		this.runner.withPropertyValues("sqlqueue.manager.lease-duration=10s", "sqlqueue.manager.heartbeat-interval=10s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("heartbeatInterval")
				.hasMessageContaining("leaseDuration"));
	}

	@Test
	void usesTheNamedDialect() {
		this.runner.withPropertyValues("sqlqueue.jdbc.dialect=h2")
			.run((context) -> assertThat(context.getBean(Dialect.class)).isInstanceOf(H2Dialect.class));
	}

	@Test
	void failsOnAnUnknownDialectNamingTheSupportedOnes() {
		this.runner.withPropertyValues("sqlqueue.jdbc.dialect=oracle")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("oracle")
				.hasMessageContaining("postgresql")
				.hasMessageContaining("h2"));
	}

	@Test
	void backsOffForTheApplicationsOwnBeans() {
		this.runner.withUserConfiguration(OwnBeans.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(Dialect.class)).isSameAs(OwnBeans.DIALECT);
			assertThat(context.getBean(JobStore.class)).isSameAs(OwnBeans.STORE);
			assertThat(context.getBean(PayloadCodec.class)).isSameAs(OwnBeans.CODEC);
			assertThat(context.getBean(RetryPolicy.class)).isSameAs(OwnBeans.RETRY);
			assertThat(context.getBean(JobQueue.class)).isSameAs(OwnBeans.QUEUE);
			assertThat(context.getBean(SqlQueueAutoConfiguration.WORKER_EXECUTOR_BEAN_NAME))
				.isSameAs(OwnBeans.WORKERS);
			assertThat(context).doesNotHaveBean(WorkerPoolSizer.class);
			assertThat(context.getBean(Manager.class)).extracting("workers.executor").isSameAs(OwnBeans.WORKERS);
			assertThat(context.getBean(Manager.class)).extracting("store").isSameAs(OwnBeans.STORE);
		});
	}

	@Test
	void backsOffForTheApplicationsOwnManagerAndScheduler() {
		this.runner.withUserConfiguration(OwnManager.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(Manager.class)).isSameAs(context.getBean("ownManager"));
			assertThat(context.getBean(SqlQueueAutoConfiguration.TASK_SCHEDULER_BEAN_NAME))
				.isSameAs(context.getBean(OwnManager.class).scheduler);
			assertThat(context.getBean(Reaper.class)).extracting("scheduler")
				.isSameAs(context.getBean(OwnManager.class).scheduler);
		});
	}

	@Test
	void leavesTheApplicationsTaskExecutorAlone() {
		this.runner.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasBean("applicationTaskExecutor");
				assertThat(context.getBean(TaskExecutor.class)).isSameAs(context.getBean("applicationTaskExecutor"));
				assertThat(context.getBean(Executor.class)).isSameAs(context.getBean("applicationTaskExecutor"));
				assertThat(context.getBean(Manager.class)).extracting("workers.executor")
					.isSameAs(context.getBean(SqlQueueAutoConfiguration.WORKER_EXECUTOR_BEAN_NAME))
					.isNotSameAs(context.getBean("applicationTaskExecutor"));
			});
	}

	@Test
	void migratesTheQueueTable() {
		this.runner.run((context) -> {
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM queue_job", Integer.class)).isZero();
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM \"sqlqueue_schema_history\" WHERE \"success\"",
					Integer.class))
				.isPositive();
		});
	}

	@Test
	void migratesNothingWhenMigrateIsOff() {
		this.runner.withPropertyValues("sqlqueue.jdbc.migrate=false").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(QueueSchemaInitializer.class).hasSingleBean(JobQueue.class);
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			assertThat(jdbc.queryForObject(
					"SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE LOWER(TABLE_NAME) IN ('queue_job', 'sqlqueue_schema_history')",
					Integer.class))
				.isZero();
		});
	}

	@Test
	void sizesTheWorkerPoolForTheHandlersQueues() {
		this.runner.withPropertyValues("sqlqueue.manager.concurrency=3", "sqlqueue.queues.mail.concurrency=2")
			.withBean("greeter", JobHandlerRegistrationTests.Greeter.class)
			.run((context) -> {
				ThreadPoolTaskExecutor workers = context.getBean(SqlQueueAutoConfiguration.WORKER_EXECUTOR_BEAN_NAME,
						ThreadPoolTaskExecutor.class);
				assertThat(workers.getMaxPoolSize()).isEqualTo(3 + 3 + 2); // greetings, default, mail
				assertThat(workers.getCorePoolSize()).isEqualTo(3 + 3 + 2);
			});
	}

	@Test
	void putsTheTableInTheConfiguredSchema() {
		// H2 folds unquoted names to upper case; see putsTheTableInALowerCaseSchemaOnH2.
		putsTheTableInSchema("JOBS");
	}

	@Test
	void putsTheTableInALowerCaseSchemaOnH2() {
		putsTheTableInSchema("jobs");
	}

	private void putsTheTableInSchema(String name) {
		this.runner.withPropertyValues("sqlqueue.jdbc.schema=" + name).run((context) -> {
			assertThat(context).hasNotFailed();
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			assertThat(jdbc.queryForList(
					"SELECT TABLE_SCHEMA FROM INFORMATION_SCHEMA.TABLES WHERE LOWER(TABLE_NAME) = 'queue_job'",
					String.class))
				.singleElement()
				.satisfies((schema) -> assertThat(schema).isEqualToIgnoringCase(name));
			JobQueue jobs = context.getBean(JobQueue.class);
			long id = jobs.enqueue("report.daily", null);
			assertThat(jobs.find(id)).isPresent();
		});
	}

	static class RecordingListener implements JobListener {

		final List<String> events = new CopyOnWriteArrayList<>();

		@Override
		public void enqueued(String queue, String handler, int jobs) {
			this.events.add("enqueued " + queue + " " + handler + " " + jobs);
		}

		@Override
		public void finished(JobRecord job, JobOutcome outcome, Duration took) {
			this.events.add("finished " + job.id() + " " + outcome.tag());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnBeans {

		static final Dialect DIALECT = new H2Dialect();

		static final PayloadCodec CODEC = new PayloadCodec();

		static final RetryPolicy RETRY = RetryPolicy.DEFAULT;

		static final HandlerRegistry HANDLERS = new HandlerRegistry();

		static final Executor WORKERS = new SyncTaskExecutor();

		static JobStore STORE;

		static JobQueue QUEUE;

		@Bean
		Dialect ownDialect() {
			return DIALECT;
		}

		@Bean
		JobStore ownStore(DataSource dataSource) {
			STORE = new JobStore(dataSource, DIALECT, null);
			return STORE;
		}

		@Bean
		PayloadCodec ownCodec() {
			return CODEC;
		}

		@Bean
		RetryPolicy ownRetryPolicy() {
			return RETRY;
		}

		@Bean
		HandlerRegistry ownHandlers() {
			return HANDLERS;
		}

		@Bean
		JobQueue ownJobQueue(JobStore store) {
			QUEUE = new DefaultJobQueue(store, CODEC, HANDLERS, RETRY);
			return QUEUE;
		}

		@Bean(SqlQueueAutoConfiguration.WORKER_EXECUTOR_BEAN_NAME)
		Executor ownWorkers() {
			return WORKERS;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnManager {

		final ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();

		@Bean(SqlQueueAutoConfiguration.TASK_SCHEDULER_BEAN_NAME)
		ThreadPoolTaskScheduler ownScheduler() {
			return this.scheduler;
		}

		@Bean
		Manager ownManager(JobStore store, HandlerRegistry handlers, PayloadCodec codec) {
			return new Manager(store, handlers, codec, ManagerSettings.defaults(), this.scheduler,
					new SyncTaskExecutor());
		}

	}

	static class Sleeper {

		final AtomicInteger interrupted = new AtomicInteger();

		@JobHandler("sleep")
		void sleep() throws InterruptedException {
			try {
				Thread.sleep(60_000);
			}
			catch (InterruptedException ex) {
				this.interrupted.incrementAndGet();
				throw ex;
			}
		}

	}

}
