package io.sqlqueue.dashboard.autoconfigure;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.function.RouterFunction;

import io.sqlqueue.JobQueue;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.boot.autoconfigure.SqlQueueProperties;
import io.sqlqueue.boot.autoconfigure.endpoint.SqlQueueEndpointProperties;
import io.sqlqueue.dashboard.JobDetails;
import io.sqlqueue.dashboard.OverviewReader;
import io.sqlqueue.dashboard.web.DashboardAccess;
import io.sqlqueue.dashboard.web.DashboardHosts;
import io.sqlqueue.dashboard.web.DashboardRouter;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.internal.manager.Manager;
import io.sqlqueue.internal.store.Dialect;
import io.sqlqueue.internal.store.JobBrowser;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.ReadStore;
import io.sqlqueue.schedule.Schedules;

/**
 * Auto-configuration of the sqlqueue dashboard in a servlet web application: its page and
 * JSON API under {@code sqlqueue.dashboard.path} ({@code /sqlqueue}), read-only unless
 * {@code sqlqueue.dashboard.actions-enabled}. It never opens more than the
 * {@code sqlqueue} Actuator endpoint's access allows, and where Spring Security is on the
 * class path the application's own rules guard it and its actions need a signed-in user;
 * without it, it answers only on loopback hosts and {@code sqlqueue.dashboard.allowed-hosts}.
 * Its counts and job lists read the queue's {@link ReadStore}: the read replica
 * ({@code @SqlQueueReadDataSource}) where the application has one. Every bean backs off when
 * the application defines its own.
 */
@AutoConfiguration(after = SqlQueueAutoConfiguration.class,
		afterName = "org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration")
@ConditionalOnWebApplication(type = Type.SERVLET)
@ConditionalOnClass(RouterFunction.class)
@ConditionalOnBean({ JobQueue.class, JobStore.class, ReadStore.class, SqlQueueProperties.class, QueueAdmin.class })
@ConditionalOnBooleanProperty(name = "sqlqueue.dashboard.enabled", matchIfMissing = true)
@EnableConfigurationProperties({ SqlQueueDashboardProperties.class, SqlQueueEndpointProperties.class })
public final class SqlQueueDashboardAutoConfiguration {

	/** The class whose presence means Spring Security guards the application. */
	static final String SECURITY_CLASS = "org.springframework.security.web.SecurityFilterChain";

	@Bean
	@ConditionalOnMissingBean
	OverviewReader sqlqueueOverviewReader(ReadStore reads, ObjectProvider<Manager> manager,
			ObjectProvider<Schedules> schedules, ObjectProvider<FlowControl> flowControl,
			ObjectProvider<QueueAdmin> admin, SqlQueueDashboardProperties properties) {
		Manager running = manager.getIfUnique();
		return new OverviewReader(reads, running, schedules.getIfUnique(), flowControl.getIfUnique(),
				admin.getIfUnique(), (running != null) ? running.settings().workerId() : null, properties.getRefreshInterval());
	}

	@Bean
	@ConditionalOnMissingBean
	JobDetails sqlqueueJobDetails(JobQueue jobs, QueueAdmin admin, SqlQueueEndpointProperties endpoint) {
		return new JobDetails(jobs, admin, endpoint.isShowPayload());
	}

	@Bean
	@ConditionalOnMissingBean
	DashboardAccess sqlqueueDashboardAccess(SqlQueueDashboardProperties properties, ResourceLoader resourceLoader,
			ObjectProvider<EndpointAccessLookup> endpointAccess) {
		EndpointAccessLookup lookup = endpointAccess.getIfUnique();
		return DashboardAccess.resolve(properties.isActionsEnabled(), (lookup != null) ? lookup.access() : null,
				securityPresent(resourceLoader));
	}

	@Bean
	@ConditionalOnMissingBean
	DashboardRouter sqlqueueDashboardRouter(SqlQueueDashboardProperties properties, Environment environment,
			ResourceLoader resourceLoader, DashboardAccess access, OverviewReader overview, JobDetails details,
			QueueAdmin admin, ObjectProvider<JsonMapper> json) {
		int pageSize = properties.getPageSize();
		if (pageSize < 1 || pageSize > JobBrowser.MAX_PAGE_SIZE) {
			throw new IllegalStateException(
					"sqlqueue.dashboard.page-size must be 1 to " + JobBrowser.MAX_PAGE_SIZE + ", not " + pageSize);
		}
		DashboardHosts hosts = DashboardHosts.of(properties.getAllowedHosts(), securityPresent(resourceLoader));
		return new DashboardRouter(DashboardPath.check(properties.getPath(), environment), access, hosts, overview,
				details, admin, properties.getRefreshInterval(), pageSize,
				json.getIfUnique(() -> JsonMapper.builder().build()));
	}

	private static boolean securityPresent(ResourceLoader resourceLoader) {
		return ClassUtils.isPresent(SECURITY_CLASS, resourceLoader.getClassLoader());
	}

	/** The {@code sqlqueue} endpoint's access as Actuator resolves it, or {@code null} where it cannot tell. */
	@FunctionalInterface
	interface EndpointAccessLookup {

		String access();

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(EndpointAccessResolver.class)
	static class ActuatorAccessConfiguration {

		@Bean
		@ConditionalOnBean(EndpointAccessResolver.class)
		EndpointAccessLookup sqlqueueDashboardEndpointAccess(EndpointAccessResolver resolver) {
			return () -> resolver.accessFor(EndpointId.of("sqlqueue"), Access.UNRESTRICTED).name();
		}

	}

}
