package io.sqlqueue.dashboard.autoconfigure;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.dashboard.JobDetails;
import io.sqlqueue.dashboard.DashboardContexts;
import io.sqlqueue.dashboard.web.DashboardAccess;
import io.sqlqueue.dashboard.web.DashboardRouter;

import static org.assertj.core.api.Assertions.assertThat;

class SqlQueueDashboardAutoConfigurationTests {

	@Test
	void servesTheDashboardReadOnlyByDefault() {
		DashboardContexts.runner().run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(DashboardRouter.class);
			DashboardAccess access = context.getBean(DashboardAccess.class);
			assertThat(access.readRefusal()).isNull();
			assertThat(access.actionsEnabled()).isFalse();
			assertThat(access.actionRefusal()).contains("sqlqueue.dashboard.actions-enabled=true");
			assertThat(access.actionsNeedUser()).as("Spring Security is on the class path").isTrue();
			assertThat(context).hasSingleBean(JobDetails.class);
		});
	}

	@Test
	void backsOffOutsideAServletWebApplication() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, SqlQueueAutoConfiguration.class,
					SqlQueueDashboardAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
					"sqlqueue.manager.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DashboardRouter.class));
	}

	@Test
	void backsOffWhenDisabled() {
		DashboardContexts.runner()
			.withPropertyValues("sqlqueue.dashboard.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DashboardRouter.class));
	}

	@Test
	void backsOffWithoutTheQueue() {
		DashboardContexts.runner()
			.withPropertyValues("sqlqueue.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DashboardRouter.class));
	}

	@Test
	void actionsNeedNoSignedInUserWithoutSpringSecurity() {
		DashboardContexts.runner()
			.withClassLoader(new FilteredClassLoader("org.springframework.security"))
			.withPropertyValues("sqlqueue.dashboard.actions-enabled=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				DashboardAccess access = context.getBean(DashboardAccess.class);
				assertThat(access.actionsEnabled()).isTrue();
				assertThat(access.actionsNeedUser()).isFalse();
			});
	}

	@Test
	void runsWithoutActuator() {
		DashboardContexts.runner()
			.withClassLoader(new FilteredClassLoader(EndpointAccessResolver.class))
			.withPropertyValues("sqlqueue.dashboard.actions-enabled=true")
			.run((context) -> assertThat(context.getBean(DashboardAccess.class).actionsEnabled()).isTrue());
	}

	@Test
	void isReadOnlyWhenTheActuatorEndpointIs() {
		DashboardContexts.runner()
			.withPropertyValues("sqlqueue.dashboard.actions-enabled=true", "management.endpoint.sqlqueue.access=READ_ONLY")
			.run((context) -> {
				DashboardAccess access = context.getBean(DashboardAccess.class);
				assertThat(access.readRefusal()).isNull();
				assertThat(access.actionRefusal()).contains("read-only");
			});
		DashboardContexts.runner()
			.withPropertyValues("sqlqueue.dashboard.actions-enabled=true",
					"management.endpoints.access.max-permitted=READ_ONLY")
			.run((context) -> assertThat(context.getBean(DashboardAccess.class).actionsEnabled()).isFalse());
	}

	@Test
	void refusesEverythingWhenTheActuatorEndpointIsSwitchedOff() {
		DashboardContexts.runner()
			.withPropertyValues("sqlqueue.dashboard.actions-enabled=true", "management.endpoint.sqlqueue.access=NONE")
			.run((context) -> {
				DashboardAccess access = context.getBean(DashboardAccess.class);
				assertThat(access.readRefusal()).contains("access=none");
				assertThat(access.actionsEnabled()).isFalse();
			});
	}

	@Test
	void refusesAPathThatIsNotAPlainPath() {
		for (String path : new String[] { "sqlqueue", "/sqlqueue/", "/", "/a b", "/x/../y" }) {
			DashboardContexts.runner()
				.withPropertyValues("sqlqueue.dashboard.path=" + path)
				.run((context) -> assertThat(context).as(path)
					.hasFailed()
					.getFailure()
					.rootCause()
					.hasMessageContaining("sqlqueue.dashboard.path must be a path"));
		}
	}

	@Test
	void refusesAPathThatClashesWithActuator() {
		DashboardContexts.runner()
			.withPropertyValues("management.endpoints.web.base-path=/")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("clashes with Actuator's endpoints"));
		DashboardContexts.runner()
			.withPropertyValues("sqlqueue.dashboard.path=/actuator/queue")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("clashes with Actuator's endpoints"));
		DashboardContexts.runner()
			.withPropertyValues("management.endpoints.web.base-path=/", "sqlqueue.dashboard.path=/ops/queue")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(DashboardRouter.class));
		DashboardContexts.runner()
			.withPropertyValues("sqlqueue.dashboard.path=/actuator/queue", "management.server.port=9090")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(DashboardRouter.class));
	}

	@Test
	void usesTheApplicationsOwnBeans() {
		DashboardAccess own = new DashboardAccess(null, null, false);
		DashboardContexts.runner()
			.withBean(DashboardAccess.class, () -> own)
			.run((context) -> assertThat(context.getBean(DashboardAccess.class)).isSameAs(own));
	}

}
