package io.sqlqueue.dashboard.web;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

import io.sqlqueue.Job;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobStatus;
import io.sqlqueue.admin.AdminResult;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.Refusal;
import io.sqlqueue.dashboard.DashboardContexts;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleDefinition;
import io.sqlqueue.schedule.Schedules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Every action over MockMvc, and every way one is refused: actions switched off, the
 * Actuator endpoint read-only, no signed-in user, an anonymous user the application lets
 * in, no CSRF token, and cross-site requests (no dashboard header, another Origin, or
 * {@code Sec-Fetch-Site: cross-site}).
 */
class DashboardActionsTests {

	/** What the dashboard's page sends: its header and Spring Security's CSRF token, as a signed-in user. */
	private static MockHttpServletRequestBuilder fromThePage(String path) {
		return post(path).header(ActionGuard.HEADER, "1").with(csrf()).with(user("ops"));
	}

	private static long failedJob(ApplicationContext context, String queue, String handler) {
		long id = context.getBean(JobQueue.class).enqueue(Job.of(handler, 1).queue(queue));
		DashboardContexts.fail(context, queue, "broken", handler);
		return id;
	}

	private static JobStatus stateOf(ApplicationContext context, long id) {
		return context.getBean(JobQueue.class).find(id).orElseThrow().status();
	}

	@Test
	void actionsAreRefusedUnlessTheApplicationEnablesThem() {
		DashboardContexts.runner().run((context) -> {
			long id = failedJob(context, "reports", "report.build");
			DashboardContexts.mvc(context)
				.perform(fromThePage("/sqlqueue/api/jobs/" + id + "/retry"))
				.andExpect(status().isForbidden())
				.andExpect(jsonPath("$.detail").value(containsString("sqlqueue.dashboard.actions-enabled=true")));
			assertThat(stateOf(context, id)).isEqualTo(JobStatus.FAILED);
		});
	}

	@Test
	void operatorRetriesAndCancelsJobsAndRetriesTheFailedOnesOfAQueueOrHandler() {
		DashboardContexts.runner().withPropertyValues("sqlqueue.dashboard.actions-enabled=true").run((context) -> {
			MockMvc mvc = DashboardContexts.mvc(context);
			long failed = failedJob(context, "reports", "report.build");
			mvc.perform(fromThePage("/sqlqueue/api/jobs/" + failed + "/retry"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.done").value(true))
				.andExpect(jsonPath("$.status").value("QUEUED"));
			assertThat(stateOf(context, failed)).isEqualTo(JobStatus.QUEUED);
			mvc.perform(fromThePage("/sqlqueue/api/jobs/" + failed + "/retry"))
				.andExpect(jsonPath("$.done").value(false))
				.andExpect(jsonPath("$.message").value(containsString("only a FAILED job can be retried")));
			mvc.perform(fromThePage("/sqlqueue/api/jobs/" + failed + "/cancel"))
				.andExpect(jsonPath("$.done").value(true))
				.andExpect(jsonPath("$.status").value("CANCELLED"));
			long running = context.getBean(JobQueue.class).enqueue(Job.of("mail.send", 1).queue("mail"));
			context.getBean(JobStore.class)
				.claim(new ClaimRequest("another-instance", "mail", List.of("mail.send"), 1, 60_000));
			mvc.perform(fromThePage("/sqlqueue/api/jobs/" + running + "/cancel"))
				.andExpect(jsonPath("$.done").value(true))
				.andExpect(jsonPath("$.status").value("RUNNING"))
				.andExpect(jsonPath("$.message").value(containsString("its cancel is asked for")));
			assertThat(context.getBean(JobQueue.class).find(running).orElseThrow().cancelRequestedAt()).isNotNull();
			mvc.perform(fromThePage("/sqlqueue/api/jobs/424242/cancel"))
				.andExpect(jsonPath("$.done").value(false))
				.andExpect(jsonPath("$.message").value("No job 424242"));

			long mail = failedJob(context, "mail", "mail.send");
			long report = failedJob(context, "reports", "report.build");
			long digest = failedJob(context, "mail", "mail.digest");
			mvc.perform(fromThePage("/sqlqueue/api/jobs/retry-failed").queryParam("handler", "mail.digest"))
				.andExpect(jsonPath("$.done").value(true))
				.andExpect(jsonPath("$.ids").value(contains((int) digest)));
			mvc.perform(fromThePage("/sqlqueue/api/jobs/retry-failed").queryParam("queue", "reports"))
				.andExpect(jsonPath("$.ids").value(contains((int) report)))
				.andExpect(jsonPath("$.message").value("1 failed job of queue reports queued again"));
			mvc.perform(fromThePage("/sqlqueue/api/jobs/retry-failed").queryParam("queue", "reports"))
				.andExpect(jsonPath("$.done").value(false));
			assertThat(stateOf(context, mail)).isEqualTo(JobStatus.FAILED);
			mvc.perform(fromThePage("/sqlqueue/api/jobs/retry-failed").queryParam("queue", "no such"))
				.andExpect(status().isBadRequest());
		});
	}

	/**
	 * The way out of a replay mismatch (docs/durable-steps.md#the-operators-way-out): a failed
	 * durable job's page offers a retry from each record, done through the same admin path and
	 * guard as a retry; refusals answer as a retry's, a bad record is a 400 that changes nothing.
	 */
	@Test
	void operatorRetriesAFailedDurableJobFromARecord() {
		DashboardContexts.runner().withPropertyValues("sqlqueue.dashboard.actions-enabled=true").run((context) -> {
			MockMvc mvc = DashboardContexts.mvc(context);
			JobStore store = context.getBean(JobStore.class);
			long id = context.getBean(JobQueue.class).enqueue(Job.of("order.ship", 1).queue("orders"));
			store.steps().recordStep(id, "charge", "1");
			store.steps().recordStep(id, "ship", "2");
			DashboardContexts.fail(context, "orders", "broken", "order.ship");
			long plain = failedJob(context, "reports", "report.build");
			String retryFrom = "/sqlqueue/api/jobs/" + id + "/retry-from";
			mvc.perform(get("/sqlqueue/api/jobs/" + id).with(user("ops")))
				.andExpect(jsonPath("$.actions").value(contains("retry", "retry-from")));
			mvc.perform(get("/sqlqueue/api/jobs/" + plain).with(user("ops")))
				.andExpect(jsonPath("$.actions").value(contains("retry")));

			for (String bad : new String[] { "", "0", "-1", "two" }) {
				mvc.perform(fromThePage(retryFrom).queryParam("record", bad))
					.andExpect(status().isBadRequest())
					.andExpect(jsonPath("$.detail").value("'record' must be the number, from 1, of the first of the "
							+ "job's records to delete; not '" + bad + "'"));
			}
			mvc.perform(fromThePage(retryFrom)).andExpect(status().isBadRequest());
			mvc.perform(post(retryFrom).queryParam("record", "1").header(ActionGuard.HEADER, "1").with(user("ops")))
				.andExpect(status().isForbidden());
			mvc.perform(fromThePage(retryFrom).queryParam("record", "3"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.done").value(false))
				.andExpect(jsonPath("$.status").value("FAILED"))
				.andExpect(jsonPath("$.message").value("Job " + id + " has 2 records; there is no record 3 to retry from"));
			mvc.perform(fromThePage("/sqlqueue/api/jobs/424242/retry-from").queryParam("record", "1"))
				.andExpect(jsonPath("$.done").value(false))
				.andExpect(jsonPath("$.message").value("No job 424242"));
			assertThat(context.getBean(JobQueue.class).steps(id)).hasSize(2);

			mvc.perform(fromThePage(retryFrom).queryParam("record", "2"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.done").value(true))
				.andExpect(jsonPath("$.status").value("QUEUED"));
			assertThat(stateOf(context, id)).isEqualTo(JobStatus.QUEUED);
			assertThat(context.getBean(JobQueue.class).steps(id)).extracting(io.sqlqueue.JobStep::name)
				.containsExactly("charge");
			mvc.perform(fromThePage(retryFrom).queryParam("record", "1"))
				.andExpect(jsonPath("$.done").value(false))
				.andExpect(jsonPath("$.message").value("Job " + id + " is QUEUED; only a FAILED job can be retried"));
			mvc.perform(get("/sqlqueue/api/audit").with(user("ops")))
				.andExpect(jsonPath("$[*].action").value(contains("retry-from")))
				.andExpect(jsonPath("$[0].actor").value("ops"));
		});
	}

	@Test
	void actionsCallTheApplicationsQueueAdminAndAnswerAsBefore() {
		QueueAdmin admin = mock(QueueAdmin.class);
		given(admin.retry(7)).willReturn(
				new AdminResult(false, Refusal.NOT_FAILED, "Not now", JobStatus.RUNNING, List.of()));
		// The dashboard acts for the signed-in user: the same admin here.
		given(admin.by(org.mockito.ArgumentMatchers.any())).willReturn(admin);
		DashboardContexts.runner()
			.withPropertyValues("sqlqueue.dashboard.actions-enabled=true")
			.withBean(QueueAdmin.class, () -> admin)
			.run((context) -> DashboardContexts.mvc(context)
				.perform(fromThePage("/sqlqueue/api/jobs/7/retry"))
				.andExpect(jsonPath("$.done").value(false))
				.andExpect(jsonPath("$.message").value("Not now"))
				.andExpect(jsonPath("$.status").value("RUNNING"))
				.andExpect(jsonPath("$.ids").isEmpty())
				.andExpect(jsonPath("$.refusal").doesNotExist()));
	}

	@Test
	void operatorTriggersPausesAndResumesASchedule() {
		DashboardContexts.runner().withPropertyValues("sqlqueue.dashboard.actions-enabled=true").run((context) -> {
			MockMvc mvc = DashboardContexts.mvc(context);
			context.getBean(Schedules.class)
				.create(ScheduleDefinition.of("nightly", "report.nightly", Recurrence.cron("0 0 2 * * *", "UTC"))
					.withQueue("reports")
					.withMaxAttempts(3));
			mvc.perform(fromThePage("/sqlqueue/api/schedules/nightly/trigger"))
				.andExpect(jsonPath("$.done").value(true))
				.andExpect(jsonPath("$.message").value(containsString("fired job")));
			mvc.perform(fromThePage("/sqlqueue/api/schedules/nightly/pause")).andExpect(jsonPath("$.done").value(true));
			mvc.perform(fromThePage("/sqlqueue/api/schedules/nightly/pause")).andExpect(jsonPath("$.done").value(false));
			mvc.perform(get("/sqlqueue/api/overview").with(user("ops")))
				.andExpect(jsonPath("$.schedules[0].name").value("nightly"))
				.andExpect(jsonPath("$.schedules[0].paused").value(true))
				.andExpect(jsonPath("$.schedules[0].lastJobStatus").value("QUEUED"))
				.andExpect(jsonPath("$.schedules[0].when").value("0 0 2 * * * (UTC)"));
			mvc.perform(fromThePage("/sqlqueue/api/schedules/nightly/resume")).andExpect(jsonPath("$.done").value(true));
			mvc.perform(fromThePage("/sqlqueue/api/schedules/nightly/delete")).andExpect(status().isNotFound());
			mvc.perform(fromThePage("/sqlqueue/api/schedules/nothing/trigger"))
				.andExpect(jsonPath("$.done").value(false))
				.andExpect(jsonPath("$.message").value("No schedule named 'nothing'"));
		});
	}

	@Test
	void operatorPausesAndResumesAQueueAndSeesItPaused() {
		DashboardContexts.runner().withPropertyValues("sqlqueue.dashboard.actions-enabled=true").run((context) -> {
			MockMvc mvc = DashboardContexts.mvc(context);
			long id = context.getBean(JobQueue.class).enqueue(Job.of("mail.send", 1).queue("mail"));
			mvc.perform(fromThePage("/sqlqueue/api/queues/mail/pause"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.done").value(true))
				.andExpect(jsonPath("$.message").value(containsString("Queue 'mail' is paused")));
			mvc.perform(fromThePage("/sqlqueue/api/queues/mail/pause"))
				.andExpect(jsonPath("$.done").value(false))
				.andExpect(jsonPath("$.message").value("Queue 'mail' was paused already"));
			mvc.perform(get("/sqlqueue/api/overview").with(user("ops")))
				.andExpect(jsonPath("$.queues[0].name").value("mail"))
				.andExpect(jsonPath("$.queues[0].paused.pausedAt").exists())
				.andExpect(jsonPath("$.queues[0].paused.pausedBy").value("ops"));
			assertThat(stateOf(context, id)).isEqualTo(JobStatus.QUEUED);
			mvc.perform(fromThePage("/sqlqueue/api/queues/mail/resume")).andExpect(jsonPath("$.done").value(true));
			mvc.perform(get("/sqlqueue/api/overview").with(user("ops")))
				.andExpect(jsonPath("$.queues[0].paused").doesNotExist());
			mvc.perform(fromThePage("/sqlqueue/api/queues/mail/stop")).andExpect(status().isNotFound());
			// Only the actions that changed something, each for the signed-in user.
			mvc.perform(get("/sqlqueue/api/audit").with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$[*].action").value(contains("resume-queue", "pause-queue")))
				.andExpect(jsonPath("$[*].actor").value(contains("ops", "ops")))
				.andExpect(jsonPath("$[1].queue").value("mail"));
			mvc.perform(get("/sqlqueue/api/audit?limit=0").with(user("ops"))).andExpect(status().isBadRequest());
		});
	}

	@Test
	void pausingAMalformedOrUnknownQueueIsABadRequestAndStoresNothing() {
		DashboardContexts.runner().withPropertyValues("sqlqueue.dashboard.actions-enabled=true").run((context) -> {
			MockMvc mvc = DashboardContexts.mvc(context);
			mvc.perform(fromThePage("/sqlqueue/api/queues/bad!queue/pause"))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.detail").value(containsString("Invalid queue name 'bad!queue'")));
			mvc.perform(fromThePage("/sqlqueue/api/queues/nowhere/pause"))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.detail").value(containsString("No queue 'nowhere'")));
			assertThat(context.getBean(QueueAdmin.class).pausedQueues()).isEmpty();
		});
	}

	@Test
	void crossSiteRequestsAreRefused() {
		DashboardContexts.runner().withPropertyValues("sqlqueue.dashboard.actions-enabled=true").run((context) -> {
			MockMvc mvc = DashboardContexts.mvc(context);
			long id = failedJob(context, "reports", "report.build");
			String retry = "/sqlqueue/api/jobs/" + id + "/retry";
			mvc.perform(post(retry).with(csrf()).with(user("ops")))
				.andExpect(status().isForbidden())
				.andExpect(jsonPath("$.detail").value(containsString("X-SqlQueue-Dashboard")));
			mvc.perform(fromThePage(retry).header("Sec-Fetch-Site", "cross-site"))
				.andExpect(status().isForbidden())
				.andExpect(jsonPath("$.detail").value(containsString("Sec-Fetch-Site")));
			mvc.perform(fromThePage(retry).header("Origin", "https://evil.example"))
				.andExpect(status().isForbidden())
				.andExpect(jsonPath("$.detail").value(containsString("Cross-origin")));
			mvc.perform(post(retry).header(ActionGuard.HEADER, "1").with(user("ops")))
				.andExpect(status().isForbidden());
			assertThat(stateOf(context, id)).isEqualTo(JobStatus.FAILED);
			mvc.perform(fromThePage(retry).header("Origin", "http://localhost").header("Sec-Fetch-Site", "same-origin"))
				.andExpect(jsonPath("$.done").value(true));
		});
	}

	@Test
	void unauthenticatedActionsAreRefused() {
		DashboardContexts.runner().withPropertyValues("sqlqueue.dashboard.actions-enabled=true").run((context) -> {
			long id = failedJob(context, "reports", "report.build");
			DashboardContexts.mvc(context)
				.perform(post("/sqlqueue/api/jobs/" + id + "/retry").header(ActionGuard.HEADER, "1").with(csrf()))
				.andExpect(status().isUnauthorized());
			assertThat(stateOf(context, id)).isEqualTo(JobStatus.FAILED);
		});
	}

	@Test
	void anAnonymousUserTheApplicationLetsInMayLookButNotAct() {
		DashboardContexts.runner()
			.withUserConfiguration(EveryoneMayLook.class)
			.withPropertyValues("sqlqueue.dashboard.actions-enabled=true")
			.run((context) -> {
				MockMvc mvc = DashboardContexts.mvc(context);
				long id = failedJob(context, "reports", "report.build");
				mvc.perform(get("/sqlqueue/api/jobs/" + id)).andExpect(status().isOk());
				mvc.perform(post("/sqlqueue/api/jobs/" + id + "/retry").header(ActionGuard.HEADER, "1").with(csrf()))
					.andExpect(status().isForbidden())
					.andExpect(jsonPath("$.detail").value("Actions need a signed-in user"));
				assertThat(stateOf(context, id)).isEqualTo(JobStatus.FAILED);
			});
	}

	@Test
	void withoutSpringSecurityActionsNeedTheSwitchAndTheDashboardsOwnPage() {
		DashboardContexts.runner()
			.withClassLoader(new FilteredClassLoader("org.springframework.security"))
			.withPropertyValues("sqlqueue.dashboard.actions-enabled=true")
			.run((context) -> {
				MockMvc mvc = DashboardContexts.mvc(context);
				long id = failedJob(context, "reports", "report.build");
				mvc.perform(post("/sqlqueue/api/jobs/" + id + "/retry")).andExpect(status().isForbidden());
				mvc.perform(post("/sqlqueue/api/jobs/" + id + "/retry").header(ActionGuard.HEADER, "1"))
					.andExpect(jsonPath("$.done").value(true));
				String page = mvc.perform(get("/sqlqueue/")).andReturn().getResponse().getContentAsString();
				assertThat(page).contains("<meta name=\"sqlqueue-csrf-token\" content=\"\">")
					.contains("<meta name=\"sqlqueue-actions\" content=\"true\">");
			});
		DashboardContexts.runner()
			.withClassLoader(new FilteredClassLoader("org.springframework.security"))
			.run((context) -> {
				long id = failedJob(context, "reports", "report.build");
				DashboardContexts.mvc(context)
					.perform(post("/sqlqueue/api/jobs/" + id + "/retry").header(ActionGuard.HEADER, "1"))
					.andExpect(status().isForbidden());
				assertThat(stateOf(context, id)).isEqualTo(JobStatus.FAILED);
			});
	}

	@Test
	void actionsAreRefusedWhileTheActuatorEndpointIsReadOnly() {
		DashboardContexts.runner()
			.withPropertyValues("sqlqueue.dashboard.actions-enabled=true", "management.endpoint.sqlqueue.access=READ_ONLY")
			.run((context) -> {
				long id = failedJob(context, "reports", "report.build");
				DashboardContexts.mvc(context)
					.perform(fromThePage("/sqlqueue/api/jobs/" + id + "/retry"))
					.andExpect(status().isForbidden())
					.andExpect(jsonPath("$.detail").value(containsString("read-only")));
				DashboardContexts.mvc(context)
					.perform(get("/sqlqueue/api/jobs/" + id).with(user("ops")))
					.andExpect(status().isOk());
			});
	}

	/** An application that lets everyone see everything, the dashboard included. */
	@Configuration(proxyBeanMethods = false)
	static class EveryoneMayLook {

		@Bean
		SecurityFilterChain security(HttpSecurity http) throws Exception {
			http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll());
			return http.build();
		}

	}

}
