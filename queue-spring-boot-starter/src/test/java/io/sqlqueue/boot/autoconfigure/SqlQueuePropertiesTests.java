package io.sqlqueue.boot.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.unit.DataSize;

import io.sqlqueue.boot.autoconfigure.endpoint.SqlQueueEndpointProperties;
import io.sqlqueue.boot.autoconfigure.health.SqlQueueHealthIndicatorProperties;
import io.sqlqueue.handler.UnknownHandlerPolicy;
import io.sqlqueue.internal.store.ClaimMethod;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each group of the properties binds under its name: {@code sqlqueue.*} at the top,
 * {@code sqlqueue.jdbc.*}, {@code sqlqueue.manager.*}, {@code sqlqueue.maintenance.*}, and
 * the endpoint's and the health indicator's under {@code management.*}.
 */
class SqlQueuePropertiesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(AllProperties.class);

	@Test
	void bindsTheTopLevelSettings() {
		this.runner
			.withPropertyValues("sqlqueue.enabled=false", "sqlqueue.payload-max-size=2MB",
					"sqlqueue.unknown-handlers=fail", "sqlqueue.remote-handlers=billing.*,mail.send",
					"sqlqueue.queues.mail.concurrency=2", "sqlqueue.schedules.nightly.cron=0 0 2 * * *")
			.run((context) -> {
				SqlQueueProperties properties = context.getBean(SqlQueueProperties.class);
				assertThat(properties.isEnabled()).isFalse();
				assertThat(properties.getPayloadMaxSize()).isEqualTo(DataSize.ofMegabytes(2));
				assertThat(properties.getUnknownHandlers()).isEqualTo(UnknownHandlerPolicy.FAIL);
				assertThat(properties.getRemoteHandlers()).isEqualTo(List.of("billing.*", "mail.send"));
				assertThat(properties.getQueues().get("mail").getConcurrency()).isEqualTo(2);
				assertThat(properties.getSchedules().get("nightly").getCron()).isEqualTo("0 0 2 * * *");
			});
	}

	@Test
	void bindsTheJdbcGroup() {
		this.runner
			.withPropertyValues("sqlqueue.jdbc.schema=jobs", "sqlqueue.jdbc.migrate=false", "sqlqueue.jdbc.dialect=h2",
					"sqlqueue.jdbc.claim-method=compare-and-set", "sqlqueue.jdbc.notify=false")
			.run((context) -> {
				JdbcProperties jdbc = context.getBean(SqlQueueProperties.class).getJdbc();
				assertThat(jdbc.getSchema()).isEqualTo("jobs");
				assertThat(jdbc.isMigrate()).isFalse();
				assertThat(jdbc.getDialect()).isEqualTo("h2");
				assertThat(jdbc.getClaimMethod()).isEqualTo(ClaimMethod.COMPARE_AND_SET);
				assertThat(jdbc.isNotify()).isFalse();
			});
	}

	@Test
	void bindsEverythingTheManagerReadsUnderManager() {
		this.runner
			.withPropertyValues("sqlqueue.manager.enabled=false", "sqlqueue.manager.worker-id=node-1",
					"sqlqueue.manager.concurrency=3", "sqlqueue.manager.poll-interval=250ms",
					"sqlqueue.manager.batch-size=5", "sqlqueue.manager.prefetch=7",
					"sqlqueue.manager.lease-duration=30s", "sqlqueue.manager.heartbeat-interval=4s",
					"sqlqueue.manager.handler-timeout=2m", "sqlqueue.manager.shutdown-timeout=1s",
					"sqlqueue.manager.result-max-size=32KB", "sqlqueue.manager.completion.linger=5ms",
					"sqlqueue.manager.completion.batch-size=50")
			.run((context) -> {
				ManagerProperties manager = context.getBean(SqlQueueProperties.class).getManager();
				assertThat(manager.isEnabled()).isFalse();
				assertThat(manager.getWorkerId()).isEqualTo("node-1");
				assertThat(manager.getConcurrency()).isEqualTo(3);
				assertThat(manager.getPollInterval()).isEqualTo(Duration.ofMillis(250));
				assertThat(manager.getBatchSize()).isEqualTo(5);
				assertThat(manager.getPrefetch()).isEqualTo(7);
				assertThat(manager.getLeaseDuration()).isEqualTo(Duration.ofSeconds(30));
				assertThat(manager.getHeartbeatInterval()).isEqualTo(Duration.ofSeconds(4));
				assertThat(manager.getHandlerTimeout()).isEqualTo(Duration.ofMinutes(2));
				assertThat(manager.getShutdownTimeout()).isEqualTo(Duration.ofSeconds(1));
				assertThat(manager.getResultMaxSize()).isEqualTo(DataSize.ofKilobytes(32));
				assertThat(manager.getCompletion().getLinger()).isEqualTo(Duration.ofMillis(5));
				assertThat(manager.getCompletion().getBatchSize()).isEqualTo(50);
			});
	}

	@Test
	void bindsEveryLoopsIntervalUnderMaintenance() {
		this.runner
			.withPropertyValues("sqlqueue.maintenance.reaper-interval=1s", "sqlqueue.maintenance.pruner-interval=2s",
					"sqlqueue.maintenance.vacuum-interval=3s", "sqlqueue.maintenance.stats-interval=4s",
					"sqlqueue.maintenance.schedule-interval=5s")
			.run((context) -> {
				MaintenanceProperties maintenance = context.getBean(SqlQueueProperties.class).getMaintenance();
				assertThat(maintenance.getReaperInterval()).isEqualTo(Duration.ofSeconds(1));
				assertThat(maintenance.getPrunerInterval()).isEqualTo(Duration.ofSeconds(2));
				assertThat(maintenance.getVacuumInterval()).isEqualTo(Duration.ofSeconds(3));
				assertThat(maintenance.getStatsInterval()).isEqualTo(Duration.ofSeconds(4));
				assertThat(maintenance.getScheduleInterval()).isEqualTo(Duration.ofSeconds(5));
			});
	}

	@Test
	void keepsTheDefaultsOfEveryGroup() {
		this.runner.run((context) -> {
			SqlQueueProperties properties = context.getBean(SqlQueueProperties.class);
			assertThat(properties.getJdbc().isMigrate()).isTrue();
			assertThat(properties.getManager().getPollInterval()).isEqualTo(Duration.ofSeconds(1));
			assertThat(properties.getManager().getHeartbeatInterval()).isNull();
			assertThat(properties.getMaintenance().getPrunerInterval()).isEqualTo(Duration.ofMinutes(10));
			assertThat(context.getBean(SqlQueueEndpointProperties.class).isShowPayload()).isFalse();
			assertThat(context.getBean(SqlQueueHealthIndicatorProperties.class).getMaxDueAge())
				.isEqualTo(Duration.ofMinutes(5));
		});
	}

	@Test
	void bindsTheEndpointsSettingsUnderManagementEndpoint() {
		this.runner.withPropertyValues("management.endpoint.sqlqueue.show-payload=true")
			.run((context) -> assertThat(context.getBean(SqlQueueEndpointProperties.class).isShowPayload()).isTrue());
	}

	@Test
	void bindsTheHealthIndicatorsSettingsUnderManagementHealth() {
		this.runner
			.withPropertyValues("management.health.sqlqueue.max-due-age=1m",
					"management.health.sqlqueue.stale-status=STALE")
			.run((context) -> {
				SqlQueueHealthIndicatorProperties health = context.getBean(SqlQueueHealthIndicatorProperties.class);
				assertThat(health.getMaxDueAge()).isEqualTo(Duration.ofMinutes(1));
				assertThat(health.getStaleStatus()).isEqualTo("STALE");
			});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties({ SqlQueueProperties.class, SqlQueueEndpointProperties.class,
			SqlQueueHealthIndicatorProperties.class })
	static class AllProperties {

	}

}
