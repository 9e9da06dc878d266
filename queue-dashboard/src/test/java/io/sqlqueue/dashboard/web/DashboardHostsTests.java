package io.sqlqueue.dashboard.web;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

import io.sqlqueue.Job;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobStatus;
import io.sqlqueue.dashboard.DashboardContexts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * DNS rebinding: a page of another site whose name the attacker points at the dashboard's
 * address after the page has loaded. The browser then sends the page's requests to the
 * dashboard with the attacker's name as {@code Host} and {@code Origin}, same-origin in
 * every header, so only the host tells them apart: the dashboard answers on loopback hosts
 * and on those of {@code sqlqueue.dashboard.allowed-hosts}, unless Spring Security guards it.
 */
class DashboardHostsTests {

	private static final String REBOUND = "rebound.example:8080";

	/** Without Spring Security, actions on: the set-up the rebinding attack aims at. */
	private static WebApplicationContextRunner unsecured() {
		return DashboardContexts.runner()
			.withClassLoader(new FilteredClassLoader("org.springframework.security"))
			.withPropertyValues("sqlqueue.dashboard.actions-enabled=true");
	}

	/** What a page served from {@code host} sends: same-origin in every header, with the dashboard's own. */
	private static MockHttpServletRequestBuilder fromAPageOf(String host, MockHttpServletRequestBuilder request) {
		return request.header("Host", host)
			.header("Origin", "http://" + host)
			.header("Sec-Fetch-Site", "same-origin")
			.header(ActionGuard.HEADER, "1");
	}

	private static long failedJob(ApplicationContext context) {
		long id = context.getBean(JobQueue.class).enqueue(Job.of("report.build", 1).queue("reports"));
		DashboardContexts.fail(context, "reports", "broken", "report.build");
		return id;
	}

	private static JobStatus stateOf(ApplicationContext context, long id) {
		return context.getBean(JobQueue.class).find(id).orElseThrow().status();
	}

	@Test
	void aReboundHostWithAMatchingOriginMayNeitherActNorRead() {
		unsecured().run((context) -> {
			MockMvc mvc = DashboardContexts.mvc(context);
			long id = failedJob(context);
			mvc.perform(fromAPageOf(REBOUND, post("/sqlqueue/api/jobs/" + id + "/retry")))
				.andExpect(status().isForbidden())
				.andExpect(jsonPath("$.detail").value(containsString("rebound.example")))
				.andExpect(jsonPath("$.detail").value(containsString("sqlqueue.dashboard.allowed-hosts")));
			mvc.perform(fromAPageOf(REBOUND, post("/sqlqueue/api/jobs/retry-failed").queryParam("queue", "reports")))
				.andExpect(status().isForbidden());
			assertThat(stateOf(context, id)).isEqualTo(JobStatus.FAILED);
			mvc.perform(fromAPageOf(REBOUND, get("/sqlqueue/api/jobs/" + id))).andExpect(status().isForbidden());
			mvc.perform(fromAPageOf(REBOUND, get("/sqlqueue/api/overview"))).andExpect(status().isForbidden());
			mvc.perform(fromAPageOf(REBOUND, get("/sqlqueue/"))).andExpect(status().isForbidden());
		});
	}

	@Test
	void loopbackHostsMayActAndRead() {
		unsecured().run((context) -> {
			MockMvc mvc = DashboardContexts.mvc(context);
			for (String host : new String[] { "localhost:8080", "LocalHost", "127.0.0.1:8080", "127.1.2.3",
					"[::1]:8080" }) {
				long id = failedJob(context);
				mvc.perform(fromAPageOf(host, get("/sqlqueue/api/jobs/" + id))).andExpect(status().isOk());
				mvc.perform(fromAPageOf(host, post("/sqlqueue/api/jobs/" + id + "/retry")))
					.andExpect(status().isOk())
					.andExpect(jsonPath("$.done").value(true));
				assertThat(stateOf(context, id)).as(host).isEqualTo(JobStatus.QUEUED);
			}
			for (String host : new String[] { "127.0.0.1.rebound.example", "localhost.rebound.example",
					"128.0.0.1", "[::2]" }) {
				mvc.perform(fromAPageOf(host, get("/sqlqueue/api/overview"))).andExpect(status().isForbidden());
			}
		});
	}

	@Test
	void theConfiguredHostsMayActAndRead() {
		unsecured().withPropertyValues("sqlqueue.dashboard.allowed-hosts=ops.example.com, 10.0.0.7")
			.run((context) -> {
				MockMvc mvc = DashboardContexts.mvc(context);
				long id = failedJob(context);
				mvc.perform(fromAPageOf("ops.example.com", get("/sqlqueue/"))).andExpect(status().isOk());
				mvc.perform(fromAPageOf("10.0.0.7:8080", post("/sqlqueue/api/jobs/" + id + "/retry")))
					.andExpect(jsonPath("$.done").value(true));
				mvc.perform(fromAPageOf("localhost", get("/sqlqueue/api/overview"))).andExpect(status().isOk());
				mvc.perform(fromAPageOf(REBOUND, post("/sqlqueue/api/jobs/" + id + "/cancel")))
					.andExpect(status().isForbidden());
				assertThat(stateOf(context, id)).isEqualTo(JobStatus.QUEUED);
			});
	}

	@Test
	void anAsteriskAllowsEveryHost() {
		unsecured().withPropertyValues("sqlqueue.dashboard.allowed-hosts=*").run((context) -> {
			long id = failedJob(context);
			DashboardContexts.mvc(context)
				.perform(fromAPageOf(REBOUND, post("/sqlqueue/api/jobs/" + id + "/retry")))
				.andExpect(jsonPath("$.done").value(true));
		});
	}

	@Test
	void withSpringSecurityTheApplicationsRulesDecideUnlessHostsAreConfigured() {
		DashboardContexts.runner().withPropertyValues("sqlqueue.dashboard.actions-enabled=true").run((context) -> {
			long id = failedJob(context);
			DashboardContexts.mvc(context)
				.perform(fromAPageOf(REBOUND, post("/sqlqueue/api/jobs/" + id + "/retry")).with(csrf())
					.with(user("ops")))
				.andExpect(jsonPath("$.done").value(true));
		});
		DashboardContexts.runner()
			.withPropertyValues("sqlqueue.dashboard.actions-enabled=true", "sqlqueue.dashboard.allowed-hosts=ops.example.com")
			.run((context) -> {
				MockMvc mvc = DashboardContexts.mvc(context);
				long id = failedJob(context);
				mvc.perform(fromAPageOf(REBOUND, post("/sqlqueue/api/jobs/" + id + "/retry")).with(csrf())
					.with(user("ops"))).andExpect(status().isForbidden());
				assertThat(stateOf(context, id)).isEqualTo(JobStatus.FAILED);
				mvc.perform(fromAPageOf("ops.example.com", post("/sqlqueue/api/jobs/" + id + "/retry")).with(csrf())
					.with(user("ops"))).andExpect(jsonPath("$.done").value(true));
			});
	}

	@Test
	void failsToStartOnAnAllowedHostThatIsNoHost() {
		unsecured().withPropertyValues("sqlqueue.dashboard.allowed-hosts=https://ops.example.com/")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("sqlqueue.dashboard.allowed-hosts")
				.hasMessageContaining("https://ops.example.com/"));
	}

}
