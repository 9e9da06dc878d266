package io.sqlqueue.boot.autoconfigure;

import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import io.sqlqueue.JobQueue;
import io.sqlqueue.admin.BulkAction;
import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.JobSummary;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.ReplicaReadException;
import io.sqlqueue.admin.Staleness;
import io.sqlqueue.boot.actuate.endpoint.CountDescriptor;
import io.sqlqueue.boot.actuate.endpoint.QueuesDescriptor;
import io.sqlqueue.boot.actuate.endpoint.SearchDescriptor;
import io.sqlqueue.boot.actuate.endpoint.SqlQueueEndpoint;
import io.sqlqueue.boot.autoconfigure.endpoint.SqlQueueEndpointAutoConfiguration;
import io.sqlqueue.boot.autoconfigure.metrics.SqlQueueMetricsAutoConfiguration;
import io.sqlqueue.internal.maintenance.ReplicaLagMonitor;
import io.sqlqueue.internal.schema.QueueSchemaMigrator;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.NewJob;
import io.sqlqueue.internal.store.ReadStore;
import io.sqlqueue.internal.store.h2.H2Dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The read DataSource ({@link SqlQueueReadDataSource @SqlQueueReadDataSource}): without one
 * every read stays on the queue's own DataSource; with one, declared as not a default
 * candidate or beside a {@code @Primary} one, the queue still runs on the primary and only
 * the reads that tolerate staleness go to it. The replica here is a second H2 database
 * holding other jobs, so that a read shows where it went.
 */
class ReadDataSourceTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				SqlQueueAutoConfiguration.class, SqlQueueEndpointAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + newH2Url(), "sqlqueue.manager.enabled=false",
				"management.endpoints.web.exposure.include=sqlqueue");

	@Test
	void withoutAReadDataSourceEveryReadStaysOnTheQueuesOwn() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(JobStore.class).hasSingleBean(ReadStore.class);
			assertThat(context.getBean(ReadStore.class).isReplica()).isFalse();
			long id = context.getBean(JobQueue.class).enqueue("work", 1);
			QueueAdmin admin = context.getBean(QueueAdmin.class);
			assertThat(admin.search(JobFilter.builder().build(), null, 10).jobs()).extracting(JobSummary::id)
				.containsExactly(id);
			assertThat(admin.readStaleness().state()).isEqualTo(Staleness.State.PRIMARY);
			QueuesDescriptor queues = context.getBean(SqlQueueEndpoint.class).queues();
			assertThat(queues.queues()).containsKey("default");
			assertThat(queues.reads().replica()).isFalse();
			assertThat(queues.reads().state()).isEqualTo(Staleness.State.PRIMARY);
			assertThat(queues.reads().behind()).isEqualTo("PT0S");
		});
	}

	@Test
	void aReadDataSourceThatIsNoDefaultCandidateTakesTheReadsThatTolerateStalenessAndNothingElse() {
		this.runner.withUserConfiguration(NoDefaultCandidateReplica.class).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(JobStore.class);
			// Boot's own DataSource is still made from spring.datasource.*, and is the one injected.
			assertThat(context.getBean(DataSource.class)).isInstanceOf(HikariDataSource.class);
			assertThat(context.getBean(ReadStore.class).isReplica()).isTrue();
			assertReadsGoToTheReplica(context.getBean(JobQueue.class), context.getBean(QueueAdmin.class),
					context.getBean(SqlQueueEndpoint.class), context.getBean("replica", DataSource.class));
		});
	}

	@Test
	void aQualifiedReadDataSourceBesideAPrimaryOneTakesTheReadsThatTolerateStalenessAndNothingElse() {
		this.runner.withUserConfiguration(PrimaryAndReplica.class).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(JobStore.class);
			assertThat(context.getBean(DataSource.class)).isSameAs(context.getBean("primary"));
			assertReadsGoToTheReplica(context.getBean(JobQueue.class), context.getBean(QueueAdmin.class),
					context.getBean(SqlQueueEndpoint.class), context.getBean("replica", DataSource.class));
		});
	}

	/**
	 * A replica that cannot be reached does not keep the application from starting (it is
	 * not asked until a read needs it); its reads fail clearly, and the queue runs on.
	 */
	@Test
	void aReadDataSourceThatCannotBeReachedFailsItsReadsAndNothingElse() {
		this.runner.withUserConfiguration(UnreachableReplica.class).run((context) -> {
			assertThat(context).hasNotFailed();
			JobQueue jobs = context.getBean(JobQueue.class);
			QueueAdmin admin = context.getBean(QueueAdmin.class);
			SqlQueueEndpoint endpoint = context.getBean(SqlQueueEndpoint.class);
			long id = jobs.enqueue("work", 1);
			assertThatExceptionOfType(ReplicaReadException.class)
				.isThrownBy(() -> admin.search(JobFilter.builder().build(), null, 10))
				.withMessageContaining("read replica (the @SqlQueueReadDataSource DataSource)");
			assertThatExceptionOfType(ReplicaReadException.class).isThrownBy(endpoint::queues);
			assertThatExceptionOfType(ReplicaReadException.class)
				.isThrownBy(() -> endpoint.read("jobs", "count", null, null, null, null, null, null, null, null, null,
						null, null, null));
			assertThat(admin.readStaleness().state()).isEqualTo(Staleness.State.UNREACHABLE);
			assertThat(endpoint.job(id)).isNotNull();
			assertThat(admin.cancel(id).done()).isTrue();
			assertThat(jobs.find(id).orElseThrow().status()).hasToString("CANCELLED");
		});
	}

	/** The gauge of the replica's lag, where the Manager runs and there is a replica; none without one. */
	@Test
	void theReplicasLagIsAGaugeWhereThereIsAReplica() {
		ApplicationContextRunner metrics = this.runner
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					SqlQueueMetricsAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("sqlqueue.manager.enabled=true");
		metrics.withUserConfiguration(NoDefaultCandidateReplica.class).run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(ReplicaLagMonitor.class).refresh();
			TimeGauge lag = context.getBean(MeterRegistry.class).get("sqlqueue.replica.lag").timeGauge();
			// H2 cannot tell how far behind it is.
			assertThat(lag.value()).isNaN();
		});
		metrics.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(MeterRegistry.class).find("sqlqueue.replica.lag").meter()).isNull();
		});
	}

	private static void assertReadsGoToTheReplica(JobQueue jobs, QueueAdmin admin, SqlQueueEndpoint endpoint,
			DataSource replica) {
		long onPrimary = jobs.enqueue("work", 1);
		JobFilter all = JobFilter.builder().build();
		assertThat(admin.count(all)).isZero();
		assertThat(endpoint.queues().queues()).doesNotContainKey("default");
		long onReplica = new JobStore(replica, new H2Dialect(), null)
			.insert(List.of(new NewJob("replicated", "work", "{}", 0, null, 0, 3, null, null)))
			.get(0);
		assertThat(admin.count(all)).isOne();
		assertThat(admin.search(all, null, 10).jobs()).extracting(JobSummary::queue).containsExactly("replicated");
		QueuesDescriptor queues = endpoint.queues();
		assertThat(queues.queues()).containsOnlyKeys("replicated");
		assertThat(queues.reads().replica()).isTrue();
		assertThat(queues.reads().state()).isEqualTo(Staleness.State.UNKNOWN);
		assertThat(queues.reads().detail()).contains("h2");
		SearchDescriptor page = (SearchDescriptor) endpoint.read("jobs", "search", null, null, null, null, null, null,
				null, null, null, null, null, null);
		assertThat(page.jobs()).extracting(JobSummary::id).containsExactly(onReplica);
		assertThat(page.reads().replica()).isTrue();
		CountDescriptor count = (CountDescriptor) endpoint.jobs("count", "replicated", null, null, null, null, null,
				null, null, null, null, null, null);
		assertThat(count.count()).isOne();
		assertThat(count.reads().replica()).isTrue();
		// What writes or decides stays on the primary: the job there, its cancel, a bulk action's walk.
		// (The replica's job may have the primary's job's id: a job is read from the primary.)
		assertThat(endpoint.job(onPrimary).queue()).isEqualTo("default");
		assertThat(admin.cancel(onPrimary).done()).isTrue();
		long another = jobs.enqueue("work", 2);
		assertThat(admin.bulk(BulkAction.CANCEL, JobFilter.builder().queue("default").build()).changed()).isOne();
		assertThat(jobs.find(another).orElseThrow().status()).hasToString("CANCELLED");
		assertThat(admin.count(JobFilter.builder().queue("default").build())).isZero();
	}

	static String newH2Url() {
		return "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
	}

	/** A second H2 database with the queue's tables, as a replica would have them. */
	static HikariDataSource migratedReplica() {
		HikariDataSource replica = h2Pool();
		new QueueSchemaMigrator(replica, new H2Dialect(), null).migrate();
		return replica;
	}

	static HikariDataSource h2Pool() {
		HikariDataSource pool = new HikariDataSource();
		pool.setJdbcUrl(newH2Url());
		return pool;
	}

	@Configuration(proxyBeanMethods = false)
	static class NoDefaultCandidateReplica {

		@Bean(defaultCandidate = false)
		@SqlQueueReadDataSource
		HikariDataSource replica() {
			return migratedReplica();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PrimaryAndReplica {

		@Bean
		@Primary
		HikariDataSource primary() {
			return h2Pool();
		}

		@Bean
		@SqlQueueReadDataSource
		HikariDataSource replica() {
			return migratedReplica();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnreachableReplica {

		@Bean(defaultCandidate = false)
		@SqlQueueReadDataSource
		DataSource replica() {
			// Nothing listens on port 1.
			return new DriverManagerDataSource("jdbc:h2:tcp://127.0.0.1:1/nowhere", "sa", "");
		}

	}

}
