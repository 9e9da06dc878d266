package io.sqlqueue.boot.autoconfigure.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.Job;
import io.sqlqueue.JobHandler;
import io.sqlqueue.JobListener;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.admin.TableHealth;
import io.sqlqueue.boot.autoconfigure.FixedTableHealth;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.boot.metrics.SqlQueueMetrics;
import io.sqlqueue.internal.await.JobAwaiter;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.internal.maintenance.QueueStats;
import io.sqlqueue.internal.maintenance.TableHealthMonitor;
import io.sqlqueue.internal.maintenance.Reaper;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;

import io.sqlqueue.schedule.MisfirePolicy;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleDefinition;
import io.sqlqueue.schedule.Schedules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class SqlQueueMetricsAutoConfigurationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class, MetricsAutoConfiguration.class,
				SqlQueueMetricsAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"sqlqueue.manager.poll-interval=50ms", "sqlqueue.manager.shutdown-timeout=1s",
				"sqlqueue.manager.concurrency=2",
				"sqlqueue.retry.initial-backoff=10ms", "sqlqueue.retry.max-backoff=20ms", "sqlqueue.retry.jitter=0");

	/** A run that parks (a durable sleep) is counted as {@code outcome=parked}, and its resume as how it ended. */
	@Test
	void countsAParkedRun() {
		this.runner.withBean("work", Work.class).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			JobQueue jobs = context.getBean(JobQueue.class);
			long napper = jobs.enqueue("napper", null);
			await().atMost(WAIT).untilAsserted(() -> assertThat(finished(registry, "napper", "succeeded")).isEqualTo(1));
			assertThat(finished(registry, "napper", "parked")).as("its sleep parked it once").isEqualTo(1);
			assertThat(jobs.find(napper)).map(JobRecord::attempts).hasValue(1);
		});
	}

	@Test
	void countsWhatRan() {
		this.runner.withBean("work", Work.class).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(SqlQueueMetrics.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			JobQueue jobs = context.getBean(JobQueue.class);
			jobs.enqueueAll(List.of(Job.of("ok", null), Job.of("ok", null), Job.of("ok", null)));
			long flaky = jobs.enqueue("flaky", null);
			long later = jobs.enqueue(Job.of("ok", null).delay(Duration.ofHours(1)));
			assertThat(jobs.cancel(later)).isTrue();
			await().atMost(WAIT).untilAsserted(() -> {
				assertThat(finished(registry, "flaky", "failed")).isEqualTo(1);
				assertThat(finished(registry, "ok", "succeeded")).isEqualTo(3);
			});
			assertThat(jobs.find(flaky)).map(JobRecord::status).hasValue(JobStatus.FAILED);
			assertThat(registry.get("sqlqueue.jobs.enqueued").tags("queue", "work", "handler", "ok").counter().count())
				.isEqualTo(4);
			assertThat(registry.get("sqlqueue.jobs.enqueued").tags("handler", "flaky").counter().count()).isEqualTo(1);
			assertThat(finished(registry, "flaky", "retried")).isEqualTo(2);
			assertThat(finished(registry, "ok", "cancelled")).isEqualTo(1);
			assertThat(registry.find("sqlqueue.jobs.finished").tags("handler", "ok", "outcome", "failed").counter())
				.isNull();
			Timer execution = registry.get("sqlqueue.jobs.execution")
				.tags("queue", "work", "handler", "ok", "outcome", "succeeded")
				.timer();
			assertThat(execution.count()).isEqualTo(3);
			assertThat(registry.get("sqlqueue.jobs.execution").tags("handler", "flaky", "outcome", "retried").timer()
				.count()).isEqualTo(2);
			assertThat(registry.get("sqlqueue.jobs.wait").tags("handler", "ok").timer().count()).isEqualTo(3);
			assertThat(registry.get("sqlqueue.jobs.wait").tags("handler", "flaky").timer().count()).isEqualTo(3);
			assertThat(registry.get("sqlqueue.claim.batch.size").tag("queue", "work").summary().totalAmount())
				.isEqualTo(3 + 3);
			assertThat(registry.get("sqlqueue.workers.concurrency").tag("queue", "work").gauge().value()).isEqualTo(2);
			assertThat(registry.get("sqlqueue.workers.busy").tag("queue", "work").gauge().value()).isZero();
			assertThat(registry.find("sqlqueue.leases.lost").counters()).isEmpty();
			assertThat(registry.get("sqlqueue.database.races.lost").functionCounter().count()).isNotNegative();
		});
	}

	@Test
	void countsExpiriesAndCrashes() {
		this.runner.withBean("work", Work.class).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			JobQueue jobs = context.getBean(JobQueue.class);
			Instant past = Instant.parse("2000-01-01T00:00:00Z");
			// Claimed after its deadline: the worker does not start it.
			long claimed = jobs.enqueue(Job.of("ok", null).deadline(past));
			// Never claimed here (no handler): the reaper's sweep cancels it.
			long swept = jobs.enqueue(Job.of("elsewhere", null).deadline(past));
			Reaper reaper = context.getBean(Reaper.class);
			await().atMost(WAIT).until(() -> jobs.find(claimed).map(JobRecord::status).orElseThrow()
					== JobStatus.CANCELLED);
			reaper.expireOnce();
			assertThat(jobs.find(swept)).map(JobRecord::status).hasValue(JobStatus.CANCELLED);
			assertThat(finished(registry, "ok", "expired")).isEqualTo(1);
			assertThat(finished(registry, "elsewhere", "expired")).isEqualTo(1);
			assertThat(registry.find("sqlqueue.jobs.execution").tags("outcome", "expired").timers()).isEmpty();
			long crashed = jobs.enqueue("elsewhere", null);
			JobStore store = context.getBean(JobStore.class);
			assertThat(store.claim(new ClaimRequest("lost", JobQueue.DEFAULT_QUEUE, List.of("elsewhere"), 1, 1)))
				.extracting(JobRecord::id)
				.containsExactly(crashed);
			await().atMost(WAIT).until(() -> !reaper.runOnce().isEmpty());
			assertThat(registry.get("sqlqueue.jobs.reaped").tags("handler", "elsewhere", "outcome", "requeued")
				.counter()
				.count()).isEqualTo(1);
		});
	}

	@Test
	void countsScheduleTicksAndTheirLag() {
		this.runner.withBean("work", Work.class).withPropertyValues("sqlqueue.maintenance.schedule-interval=1h").run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			Schedules schedules = context.getBean(Schedules.class);
			schedules.create(ScheduleDefinition.of("minutely", "ok", Recurrence.every(Duration.ofMinutes(1))));
			schedules.create(ScheduleDefinition.of("strict", "ok", Recurrence.every(Duration.ofMinutes(1)))
				.withMisfire(MisfirePolicy.SKIP));
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			jdbc.update("UPDATE queue_schedule SET next_run_at = DATEADD('SECOND', -30, CURRENT_TIMESTAMP) "
					+ "WHERE name = 'minutely'");
			jdbc.update("UPDATE queue_schedule SET next_run_at = DATEADD('SECOND', -150, CURRENT_TIMESTAMP) "
					+ "WHERE name = 'strict'");
			schedules.fireDue();
			assertThat(registry.get("sqlqueue.schedules.ticks").tags("schedule", "minutely", "outcome", "fired")
				.counter()
				.count()).isEqualTo(1);
			assertThat(registry.get("sqlqueue.schedules.ticks").tags("schedule", "strict", "outcome", "skipped")
				.counter()
				.count()).isEqualTo(3);
			Timer lag = registry.get("sqlqueue.schedules.lag").tag("schedule", "minutely").timer();
			assertThat(lag.count()).isEqualTo(1);
			assertThat(lag.totalTime(TimeUnit.SECONDS)).isGreaterThanOrEqualTo(29);
		});
	}

	@Test
	void gaugesShowTheJobsPerQueueAndStateAsLastCounted() {
		this.runner.run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			JobQueue jobs = context.getBean(JobQueue.class);
			JobStore store = context.getBean(JobStore.class);
			Instant minuteAgo = Instant.now().minusSeconds(60);
			List<Long> ids = jobs.enqueueAll(List.of(Job.of("nobody", 1).queue("mix").runAt(minuteAgo),
					Job.of("nobody", 2).queue("mix"), Job.of("nobody", 3).queue("mix").delay(Duration.ofHours(1)),
					Job.of("nobody", 4).queue("mix")));
			jobs.enqueue(Job.of("nobody", 6).queue("mix").after(ids.get(2)));
			JobRecord claimed = store.claim(new ClaimRequest("test", "mix", List.of("nobody"), 2, 60_000)).get(0);
			store.fail(new Lease(claimed.id(), claimed.leaseToken()), "broken");
			QueueStats stats = context.getBean(QueueStats.class);
			stats.refresh();
			assertThat(jobsGauge(registry, "mix", "queued")).isEqualTo(2);
			assertThat(jobsGauge(registry, "mix", "running")).isEqualTo(1);
			assertThat(jobsGauge(registry, "mix", "failed")).isEqualTo(1);
			assertThat(jobsGauge(registry, "mix", "succeeded")).isZero();
			assertThat(jobsGauge(registry, "mix", "cancelled")).isZero();
			assertThat(jobsGauge(registry, "mix", "waiting")).as("after the delayed job").isEqualTo(1);
			assertThat(registry.get("sqlqueue.jobs.oldest.due.age").tag("queue", "mix").timeGauge().value())
				.isBetween(0.0, 60.0);

			jobs.enqueue(Job.of("nobody", 5).queue("later").runAt(minuteAgo));
			assertThat(registry.find("sqlqueue.jobs").tag("queue", "later").gauges()).isEmpty();
			stats.refresh();
			assertThat(jobsGauge(registry, "later", "queued")).isEqualTo(1);
			assertThat(registry.get("sqlqueue.jobs.oldest.due.age").tag("queue", "later").timeGauge()
				.value(java.util.concurrent.TimeUnit.SECONDS)).isBetween(59.0, 600.0);
			assertThat(jobsGauge(registry, "mix", "queued")).isEqualTo(2);
		});
	}

	/** The tables' health as last read: rows and sizes per table, and what holds the horizon back. */
	@Test
	void gaugesShowTheTablesHealthAsLastRead() {
		this.runner.withBean(FixedTableHealth.class).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			FixedTableHealth tables = context.getBean(FixedTableHealth.class);
			tables.set(FixedTableHealth.heldBack(500, Duration.ofMinutes(7)));
			context.getBean(QueueStats.class).refresh();
			assertThat(registry.get("sqlqueue.table.rows").tags("table", "queue_job", "state", "dead").gauge().value())
				.isEqualTo(500);
			assertThat(registry.get("sqlqueue.table.rows").tags("table", "queue_job", "state", "live").gauge().value())
				.isEqualTo(1_000);
			assertThat(registry.get("sqlqueue.table.size").tags("table", "queue_job", "part", "index").gauge().value())
				.isEqualTo(16_384);
			assertThat(registry.get("sqlqueue.table.size").tags("table", "queue_job", "part", "free").gauge().value())
				.isNaN();
			assertThat(registry.get("sqlqueue.horizon.age").timeGauge().value(TimeUnit.MINUTES))
				.isEqualTo(7);
			assertThat(registry.get("sqlqueue.horizon.xmin.age").gauge().value()).isEqualTo(1_500);
			assertThat(registry.get("sqlqueue.undo.history.length").gauge().value()).isNaN();
			tables.set(new TableHealth("postgresql", Instant.now(), List.of(), List.of(), null, List.of(), null));
			assertThat(registry.get("sqlqueue.horizon.age").timeGauge().value()).isZero();
			assertThat(registry.get("sqlqueue.horizon.xmin.age").gauge().value()).isZero();
			assertThat(registry.get("sqlqueue.table.rows").tags("table", "queue_job", "state", "dead").gauge().value())
				.isNaN();
		});
	}

	/** On H2 the reading reports no tables: only the horizon's gauges, at zero or NaN. */
	@Test
	void gaugesOfTheTablesAreLeftOutWhereTheDatabaseReportsNone() {
		this.runner.run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			context.getBean(TableHealthMonitor.class).refresh();
			context.getBean(QueueStats.class).refresh();
			assertThat(registry.find("sqlqueue.table.rows").gauges()).isEmpty();
			assertThat(registry.get("sqlqueue.horizon.age").timeGauge().value()).isZero();
			assertThat(registry.get("sqlqueue.undo.history.length").gauge().value()).isNaN();
		});
	}

	@Test
	void aGaugeShowsWhetherAQueueIsPausedAsLastRead() {
		this.runner.run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			context.getBean(JobQueue.class).enqueue(Job.of("nobody", 1).queue("held"));
			QueueStats stats = context.getBean(QueueStats.class);
			stats.refresh();
			assertThat(registry.get("sqlqueue.queue.paused").tag("queue", "held").gauge().value()).isZero();
			context.getBean(QueueAdmin.class).pauseQueue("held");
			stats.refresh();
			assertThat(registry.get("sqlqueue.queue.paused").tag("queue", "held").gauge().value()).isEqualTo(1);
			context.getBean(QueueAdmin.class).resumeQueue("held");
			stats.refresh();
			assertThat(registry.get("sqlqueue.queue.paused").tag("queue", "held").gauge().value()).isZero();
		});
	}

	/** Due jobs a limit holds back, per limit, for each queue with limits (docs/flow-control.md). */
	@Test
	void gaugesShowTheJobsLimitsHoldBackAsLastCounted() {
		this.runner.withPropertyValues("sqlqueue.queues.api.global-concurrency=2",
				"sqlqueue.queues.api.key-limits[0].keys=customer:*", "sqlqueue.queues.api.key-limits[0].concurrency=1")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				JobQueue jobs = context.getBean(JobQueue.class);
				jobs.enqueueAll(List.of(Job.of("nobody", 1).queue("api").concurrencyKey("customer:1"),
						Job.of("nobody", 2).queue("api").concurrencyKey("customer:1"),
						Job.of("nobody", 3).queue("api").concurrencyKey("customer:1"), Job.of("nobody", 4).queue("api"),
						Job.of("nobody", 5).queue("api"), Job.of("nobody", 6).queue("api"),
						Job.of("nobody", 7)));
				assertThat(context.getBean(JobStore.class)
					.claim(new ClaimRequest("test", "api", List.of("nobody"), 10, 60_000))).hasSize(2);
				context.getBean(QueueStats.class).refresh();
				// customer:1 runs one and holds back two; the queue runs two of two (customer:1's and the
				// first without a key) and holds back the two other jobs without a key.
				assertThat(throttled(registry, "api", "key-concurrency")).isEqualTo(2);
				assertThat(throttled(registry, "api", "queue-concurrency")).isEqualTo(2);
				assertThat(throttled(registry, "api", "queue-rate")).isZero();
				assertThat(throttled(registry, "api", "key-rate")).isZero();
				// The queue without limits has its gauges, and none of throttled jobs.
				assertThat(registry.find("sqlqueue.jobs").tag("queue", "default").gauges()).isNotEmpty();
				assertThat(registry.find("sqlqueue.jobs.throttled").tag("queue", "default").gauges()).isEmpty();
			});
	}

	private static double throttled(MeterRegistry registry, String queue, String limit) {
		return registry.get("sqlqueue.jobs.throttled").tags("queue", queue, "limit", limit).gauge().value();
	}

	@Test
	void asksForAHistogramWhenConfigured() {
		this.runner.withPropertyValues("sqlqueue.metrics.percentiles-histogram=true")
			.withBean("work", Work.class)
			.withBean(HistogramRequests.class)
			.run((context) -> {
				context.getBean(JobQueue.class).enqueue("ok", null);
				HistogramRequests requests = context.getBean(HistogramRequests.class);
				await().atMost(WAIT)
					.untilAsserted(() -> assertThat(requests.byName).containsEntry("sqlqueue.jobs.execution", true)
						.containsEntry("sqlqueue.jobs.wait", true));
			});
	}

	@Test
	void leavesTheHistogramToTheApplicationByDefault() {
		this.runner.withBean("work", Work.class).withBean(HistogramRequests.class).run((context) -> {
			context.getBean(JobQueue.class).enqueue("ok", null);
			HistogramRequests requests = context.getBean(HistogramRequests.class);
			await().atMost(WAIT)
				.untilAsserted(() -> assertThat(requests.byName).containsEntry("sqlqueue.jobs.execution", false));
		});
	}

	@Test
	void backsOffWithoutAMeterRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					SqlQueueAutoConfiguration.class, SqlQueueMetricsAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(JobQueue.class)
				.doesNotHaveBean(SqlQueueMetrics.class));
	}

	@Test
	void backsOffWithoutMicrometerAndTheQueueStillRunsJobs() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
					SqlQueueAutoConfiguration.class, SqlQueueMetricsAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("io.micrometer"))
			.withBean("work", Work.class)
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
					"sqlqueue.manager.poll-interval=50ms", "sqlqueue.manager.shutdown-timeout=1s")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(SqlQueueMetrics.class);
				// Only the queue's own awaiter listens: no meters.
				assertThat(context.getBeansOfType(JobListener.class).values()).singleElement()
					.isInstanceOf(JobAwaiter.class);
				JobQueue jobs = context.getBean(JobQueue.class);
				long id = jobs.enqueue("ok", null);
				await().atMost(WAIT)
					.until(() -> jobs.find(id).map(JobRecord::status).orElseThrow() == JobStatus.SUCCEEDED);
			});
	}

	private static double finished(MeterRegistry registry, String handler, String outcome) {
		io.micrometer.core.instrument.Counter counter = registry.find("sqlqueue.jobs.finished")
			.tags("handler", handler, "outcome", outcome)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static double jobsGauge(MeterRegistry registry, String queue, String status) {
		return registry.get("sqlqueue.jobs").tags("queue", queue, "status", status).gauge().value();
	}

	/** Whether each timer asked for a percentile histogram (unset counts as no). */
	static class HistogramRequests implements MeterFilter {

		final Map<String, Boolean> byName = new ConcurrentHashMap<>();

		@Override
		public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
			if (id.getType() == Meter.Type.TIMER) {
				this.byName.put(id.getName(), Boolean.TRUE.equals(config.isPercentileHistogram()));
			}
			return config;
		}

	}

	static class Work {

		@JobHandler(value = "ok", queue = "work")
		String ok() {
			return "done";
		}

		@JobHandler(value = "flaky", queue = "work", maxAttempts = 3)
		void flaky() {
			throw new IllegalStateException("always");
		}

		@JobHandler(value = "napper", queue = "work")
		String napper(io.sqlqueue.JobContext context) {
			context.sleep(Duration.ofMillis(100));
			return "rested";
		}

	}

}
