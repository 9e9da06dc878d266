package io.sqlqueue.dashboard;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

import com.jayway.jsonpath.JsonPath;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;

import io.sqlqueue.Job;
import io.sqlqueue.JobHandler;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobStatus;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.ReplicaReadException;
import io.sqlqueue.admin.Staleness;
import io.sqlqueue.boot.actuate.endpoint.CountDescriptor;
import io.sqlqueue.boot.actuate.endpoint.QueuesDescriptor;
import io.sqlqueue.boot.actuate.endpoint.SqlQueueEndpoint;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.boot.autoconfigure.SqlQueueReadDataSource;
import io.sqlqueue.boot.autoconfigure.endpoint.SqlQueueEndpointAutoConfiguration;
import io.sqlqueue.boot.autoconfigure.metrics.SqlQueueMetricsAutoConfiguration;
import io.sqlqueue.dashboard.autoconfigure.SqlQueueDashboardAutoConfiguration;
import io.sqlqueue.internal.maintenance.ReplicaLagMonitor;
import io.sqlqueue.internal.store.ReadStore;
import io.sqlqueue.internal.store.postgresql.PostgresDialect;
import io.sqlqueue.test.EmbeddedReplication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * The dashboard and the Actuator endpoint on PostgreSQL with a real streaming standby as
 * their read replica ({@link EmbeddedReplication}: a primary and a hot standby of it, from
 * the embedded binaries, never the machine's server). With the standby's replay paused, jobs
 * enqueued on the primary are not in the counts, lists and gauge read from the standby,
 * which say how far behind it is; resumed, they are, and it is caught up. The queue runs its
 * jobs on the primary throughout, also once the standby is stopped, when the reads that go
 * there fail with a message that names it. With the primary stopped, the standby says it
 * receives nothing.
 */
class ReadReplicaPostgresIT {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private static final String SCHEMA = "replica_it";

	private static EmbeddedReplication replication;

	@BeforeAll
	static void startPrimaryAndStandby() {
		try {
			replication = EmbeddedReplication.start(Path.of("target", "embedded-databases", "replication"));
		}
		catch (RuntimeException ex) {
			String allowed = System.getenv().getOrDefault("SQLQUEUE_TEST_ALLOW_SKIP", "");
			if (Arrays.stream(allowed.split(",")).map((name) -> name.trim().toLowerCase(Locale.ROOT))
				.anyMatch((name) -> name.equals("postgresql") || name.equals("all"))) {
				Assumptions.abort("No embedded PostgreSQL primary and standby here: " + ex.getMessage());
			}
			throw ex;
		}
	}

	@AfterAll
	static void stop() {
		if (replication != null) {
			replication.close();
		}
	}

	private WebApplicationContextRunner runner() {
		return new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
					HttpMessageConvertersAutoConfiguration.class, WebMvcAutoConfiguration.class,
					EndpointAutoConfiguration.class, SecurityAutoConfiguration.class,
					ServletWebSecurityAutoConfiguration.class, UserDetailsServiceAutoConfiguration.class,
					MetricsAutoConfiguration.class, SqlQueueAutoConfiguration.class,
					SqlQueueEndpointAutoConfiguration.class, SqlQueueMetricsAutoConfiguration.class,
					SqlQueueDashboardAutoConfiguration.class))
			.withUserConfiguration(Application.class)
			.withPropertyValues("spring.datasource.url=" + replication.primaryUrl(),
					"spring.datasource.username=postgres", "sqlqueue.jdbc.schema=" + SCHEMA,
					"sqlqueue.manager.poll-interval=100ms", "sqlqueue.manager.shutdown-timeout=1s",
					"sqlqueue.dashboard.refresh-interval=100ms", "management.endpoints.web.exposure.include=sqlqueue");
	}

	@Test
	void theDashboardAndTheEndpointReadTheStandbyAndShowHowFarBehindItIs() {
		runner().run((context) -> {
			assertThat(context).hasNotFailed();
			JobQueue jobs = context.getBean(JobQueue.class);
			QueueAdmin admin = context.getBean(QueueAdmin.class);
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);
			MockMvc mvc = DashboardContexts.mvc(context);
			assertThat(context.getBean(ReadStore.class).isReplica()).isTrue();
			for (int i = 0; i < 3; i++) {
				jobs.enqueue(Job.of("report.parked", i).queue("reports"));
			}
			// The schema and the jobs reach the standby: its reads see them, and it is caught up.
			await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
				assertThat(overviewQueued(mvc, "reports")).isEqualTo(3);
				assertThat(admin.readStaleness().state()).isEqualTo(Staleness.State.CAUGHT_UP);
			});
			assertThat(admin.readStaleness().behind()).isZero();

			// Asked to pause, the standby replays no further record (it checks before each).
			onStandby("SELECT pg_wal_replay_pause()");
			assertThat(onStandby("SELECT pg_is_wal_replay_paused()")).isEqualTo("t");
			long first = jobs.enqueue(Job.of("report.parked", 3).queue("reports"));
			jobs.enqueue(Job.of("report.parked", 4).queue("reports"));
			// Their WAL reaches the standby, which does not replay it.
			await().atMost(WAIT).until(() -> "t".equals(onStandby(
					"SELECT pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()) > 0")));
			await().atMost(WAIT).until(() -> behindMillis(admin) >= 1_000);

			// The dashboard: the counts and the list of the standby, and how far behind it is.
			String overview = read(mvc, "/sqlqueue/api/overview");
			assertThat(overviewQueued(mvc, "reports")).isEqualTo(3);
			assertThat((String) JsonPath.read(overview, "$.reads.state")).isEqualTo("REPLAY_PAUSED");
			assertThat(((Number) JsonPath.read(overview, "$.reads.behindMillis")).longValue()).isPositive();
			String list = read(mvc, "/sqlqueue/api/jobs?queue=reports");
			assertThat((List<?>) JsonPath.read(list, "$.jobs")).hasSize(3);
			assertThat((Boolean) JsonPath.read(list, "$.reads.replica")).isTrue();
			String count = read(mvc, "/sqlqueue/api/jobs/count?queue=reports");
			assertThat((Integer) JsonPath.read(count, "$.count")).isEqualTo(3);
			assertThat((String) JsonPath.read(count, "$.reads.state")).isEqualTo("REPLAY_PAUSED");
			// The endpoint and QueueAdmin: the same.
			QueuesDescriptor queues = endpoint.queues();
			assertThat(queues.queues().get("reports").jobs()).containsEntry(JobStatus.QUEUED, 3L);
			assertThat(queues.reads().state()).isEqualTo(Staleness.State.REPLAY_PAUSED);
			assertThat(Duration.parse(queues.reads().behind())).isPositive();
			CountDescriptor counted = (CountDescriptor) endpoint.jobs("count", "reports", null, null, null, null, null,
					null, null, null, null, null, null);
			assertThat(counted.count()).isEqualTo(3);
			assertThat(admin.count(JobFilter.builder().queue("reports").build())).isEqualTo(3);
			// The gauge, as the monitor last asked.
			ReplicaLagMonitor monitor = context.getBean(ReplicaLagMonitor.class);
			monitor.refresh();
			assertThat(context.getBean(MeterRegistry.class).get("sqlqueue.replica.lag").timeGauge().value())
				.isGreaterThanOrEqualTo(1.0);
			// What decides stays on the primary: the job is there, and jobs run.
			assertThat(endpoint.job(first)).isNotNull();
			assertRunsOnThePrimary(jobs, context);

			onStandby("SELECT pg_wal_replay_resume()");
			await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
				assertThat(overviewQueued(mvc, "reports")).isEqualTo(5);
				Staleness staleness = admin.readStaleness();
				assertThat(staleness.state()).isEqualTo(Staleness.State.CAUGHT_UP);
				assertThat(staleness.behind()).isZero();
			});
			assertThat(admin.count(JobFilter.builder().queue("reports").build())).isEqualTo(5);

			// The standby stops: its reads fail, saying so; nothing else does.
			replication.stopStandby();
			try {
				// The overview reuses its counts until its next read, up to ten refresh intervals
				// after a slow one (OverviewReader): it fails from that read on. The lists read each time.
				await().atMost(WAIT).until(() -> mvc.perform(get("/sqlqueue/api/overview").with(user("ops")))
					.andReturn()
					.getResponse()
					.getStatus() == 503);
				for (String path : List.of("/sqlqueue/api/overview", "/sqlqueue/api/jobs", "/sqlqueue/api/jobs/count")) {
					MvcResult failed = mvc.perform(get(path).with(user("ops"))).andReturn();
					assertThat(failed.getResponse().getStatus()).as(path).isEqualTo(503);
					assertThat(failed.getResponse().getContentAsString())
						.contains("from the read replica (the @SqlQueueReadDataSource DataSource)");
				}
				assertThatExceptionOfType(ReplicaReadException.class).isThrownBy(endpoint::queues);
				assertThat(admin.readStaleness().state()).isEqualTo(Staleness.State.UNREACHABLE);
				monitor.refresh();
				assertThat(context.getBean(MeterRegistry.class).get("sqlqueue.replica.lag").timeGauge().value())
					.isNaN();
				assertThat(mvc.perform(get("/sqlqueue/api/jobs/" + first).with(user("ops"))).andReturn()
					.getResponse()
					.getStatus()).isEqualTo(200);
				assertRunsOnThePrimary(jobs, context);
			}
			finally {
				replication.startStandby();
			}
		});
	}

	/**
	 * With its primary stopped, a standby receives nothing, and says so: how far behind it is
	 * is then unknown, however recent its last replayed transaction.
	 */
	@Test
	void aStandbyWhosePrimaryIsDownSaysItReceivesNothing() {
		try (HikariDataSource standby = pool(replication.standbyUrl())) {
			ReadStore reads = ReadStore.replica(standby, new PostgresDialect(), null);
			await().atMost(WAIT).until(() -> reads.staleness().state() == Staleness.State.CAUGHT_UP);
			replication.stopPrimary();
			try {
				await().atMost(WAIT).until(() -> reads.staleness().state() == Staleness.State.NOT_RECEIVING);
				Staleness staleness = reads.staleness();
				assertThat(staleness.behind()).isNull();
				assertThat(staleness.detail()).contains("no WAL receiver");
			}
			finally {
				replication.startPrimary();
			}
		}
	}

	private static void assertRunsOnThePrimary(JobQueue jobs, ApplicationContext context) {
		long id = jobs.enqueue("work", "on the primary");
		await().atMost(WAIT)
			.until(() -> jobs.find(id).map((job) -> job.status() == JobStatus.SUCCEEDED).orElse(false));
		assertThat(context.getBean(Application.class).ran).contains("on the primary");
		context.getBean(Application.class).ran.clear();
	}

	private static long behindMillis(QueueAdmin admin) {
		Duration behind = admin.readStaleness().behind();
		return (behind != null) ? behind.toMillis() : -1;
	}

	private static int overviewQueued(MockMvc mvc, String queue) throws Exception {
		String overview = read(mvc, "/sqlqueue/api/overview");
		List<Integer> queued = JsonPath.read(overview, "$.queues[?(@.name == '" + queue + "')].jobs.QUEUED");
		return queued.isEmpty() ? 0 : queued.get(0);
	}

	private static String read(MockMvc mvc, String path) throws Exception {
		MvcResult result = mvc.perform(get(path).with(user("ops"))).andReturn();
		assertThat(result.getResponse().getStatus()).as(path).isEqualTo(200);
		return result.getResponse().getContentAsString();
	}

	/** Runs a statement on the standby as its superuser; answers the first column of its row as text ("t" for true). */
	private static String onStandby(String sql) throws SQLException {
		try (Connection connection = DriverManager.getConnection(replication.standbyUrl(), "postgres", "");
				Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery(sql)) {
			rs.next();
			return String.valueOf(rs.getString(1));
		}
	}

	private static HikariDataSource pool(String url) {
		HikariDataSource pool = new HikariDataSource();
		pool.setJdbcUrl(url);
		pool.setUsername("postgres");
		pool.setMaximumPoolSize(2);
		pool.setConnectionTimeout(2_000);
		pool.setInitializationFailTimeout(-1);
		return pool;
	}

	/** The application: a handler on the primary, and the standby as its read DataSource. */
	@Configuration(proxyBeanMethods = false)
	static class Application {

		final List<String> ran = new CopyOnWriteArrayList<>();

		@JobHandler(value = "work", queue = "default")
		void work(String payload) {
			this.ran.add(payload);
		}

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean(defaultCandidate = false)
		@SqlQueueReadDataSource
		HikariDataSource replica() {
			return pool(replication.standbyUrl());
		}

	}

}
