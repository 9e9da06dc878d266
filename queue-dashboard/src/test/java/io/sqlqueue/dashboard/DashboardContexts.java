package io.sqlqueue.dashboard;

import java.util.List;
import java.util.UUID;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.security.test.web.servlet.setup.SecurityMockMvcConfigurers;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.DefaultMockMvcBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import io.sqlqueue.JobRecord;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;
import io.sqlqueue.dashboard.autoconfigure.SqlQueueDashboardAutoConfiguration;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;

/**
 * A web application with the queue, the dashboard, Actuator's endpoint support and Spring
 * Security (Boot's defaults: every request needs a signed-in user), on a fresh in-memory
 * H2 database; the Manager is off, so jobs stay in the states a test puts them in.
 */
public final class DashboardContexts {

	private DashboardContexts() {
	}

	public static WebApplicationContextRunner runner() {
		return new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
					HttpMessageConvertersAutoConfiguration.class, WebMvcAutoConfiguration.class,
					EndpointAutoConfiguration.class, SecurityAutoConfiguration.class,
					ServletWebSecurityAutoConfiguration.class, UserDetailsServiceAutoConfiguration.class,
					SqlQueueAutoConfiguration.class, SqlQueueDashboardAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
					"sqlqueue.manager.enabled=false");
	}

	/** MockMvc through the application's filters (Spring Security's, where it has them). */
	public static MockMvc mvc(ApplicationContext context) {
		DefaultMockMvcBuilder builder = MockMvcBuilders.webAppContextSetup((WebApplicationContext) context);
		if (context.containsBean("springSecurityFilterChain")) {
			builder.apply(SecurityMockMvcConfigurers.springSecurity());
		}
		return builder.build();
	}

	/** Claims every due job of the queue for these handlers and fails it for good. */
	public static void fail(ApplicationContext context, String queue, String error, String... handlers) {
		JobStore store = context.getBean(JobStore.class);
		for (JobRecord job : store.claim(new ClaimRequest("test-worker", queue, List.of(handlers), 100, 60_000))) {
			store.fail(new Lease(job.id(), job.leaseToken()), error);
		}
	}

}
