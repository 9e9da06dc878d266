package io.sqlqueue.dashboard.web;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.json.JsonMapper;

import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

import io.sqlqueue.Batch;
import io.sqlqueue.BatchIds;
import io.sqlqueue.Job;
import io.sqlqueue.JobQueue;
import io.sqlqueue.JobRecord;
import io.sqlqueue.admin.TableHealth;
import io.sqlqueue.dashboard.DashboardContexts;
import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.Fairness;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.internal.maintenance.TableHealthMonitor;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.InstanceReport;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.schedule.Recurrence;
import io.sqlqueue.schedule.ScheduleDefinition;
import io.sqlqueue.schedule.Schedules;
import io.sqlqueue.test.EstimatingReads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The dashboard's page and reads over MockMvc, through Spring Security (Boot's default
 * rules: every request needs a signed-in user).
 */
class DashboardApiTests {

	@Test
	void everyRequestNeedsASignedInUserUnderBootsDefaultSecurity() {
		DashboardContexts.runner().run((context) -> {
			MockMvc mvc = DashboardContexts.mvc(context);
			mvc.perform(get("/sqlqueue/api/overview").accept(MediaType.APPLICATION_JSON))
				.andExpect(status().isUnauthorized());
			mvc.perform(get("/sqlqueue/api/jobs")).andExpect(status().isUnauthorized());
			mvc.perform(get("/sqlqueue/").accept(MediaType.TEXT_HTML)).andExpect(status().is(not(200)));
		});
	}

	@Test
	void overviewCountsEveryQueueWithItsFinishedJobsPerMinute() {
		DashboardContexts.runner().run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			jobs.enqueueAll(List.of(Job.of("mail.send", 1).queue("mail"), Job.of("mail.send", 2).queue("mail"),
					Job.of("report.build", 3).queue("reports")));
			DashboardContexts.fail(context, "reports", "broken", "report.build");
			DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/api/overview").with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(header().string("Cache-Control", "no-store"))
				.andExpect(jsonPath("$.minutes").value(15))
				.andExpect(jsonPath("$.queues[0].name").value("mail"))
				.andExpect(jsonPath("$.queues[0].jobs.QUEUED").value(2))
				.andExpect(jsonPath("$.queues[0].jobs.FAILED").value(0))
				.andExpect(jsonPath("$.queues[0].totalWorkers").value(nullValue()))
				.andExpect(jsonPath("$.queues[1].name").value("reports"))
				.andExpect(jsonPath("$.queues[1].jobs.FAILED").value(1))
				.andExpect(jsonPath("$.queues[1].failedPerMinute", hasSize(15)))
				.andExpect(jsonPath("$.queues[1].failedPerMinute[14]").value(1))
				.andExpect(jsonPath("$.queues[1].succeededPerMinute[14]").value(0))
				.andExpect(jsonPath("$.queues[1].limits", empty()))
				.andExpect(jsonPath("$.schedules", empty()));
		});
	}

	/** The cluster: each instance's row, and the instance that holds each running job. */
	@Test
	void overviewShowsTheInstancesAndTheJobListWhichOneHoldsARunningJob() {
		DashboardContexts.runner().run((context) -> {
			JobStore store = context.getBean(JobStore.class);
			store.cluster().beat(new InstanceReport("web-1", "web", 42, "1.0", List.of("mail"), 8, 1, 20_000));
			store.cluster().beat(new InstanceReport("web-2", "web", 43, "0.9", List.of("mail"), 8, 0, 1));
			long running = context.getBean(JobQueue.class).enqueue(Job.of("mail.send", 1).queue("mail"));
			long queued = context.getBean(JobQueue.class).enqueue(Job.of("mail.send", 2).queue("mail"));
			store.claim(new ClaimRequest("web-1", "mail", List.of("mail.send"), 1, 60_000));
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			MockMvc mvc = DashboardContexts.mvc(context);
			mvc.perform(get("/sqlqueue/api/overview").with(user("ops")))
				.andExpect(jsonPath("$.instances", hasSize(2)))
				.andExpect(jsonPath("$.instances[0].id").value("web-1"))
				.andExpect(jsonPath("$.instances[0].queues[0]").value("mail"))
				.andExpect(jsonPath("$.instances[0].busyWorkers").value(1))
				.andExpect(jsonPath("$.instances[0].gone").value(false))
				.andExpect(jsonPath("$.instances[1].id").value("web-2"))
				.andExpect(jsonPath("$.instances[1].gone").value(true));
			mvc.perform(get("/sqlqueue/api/jobs?queue=mail").with(user("ops")))
				.andExpect(jsonPath("$.jobs[?(@.id == " + running + ")].worker").value(contains("web-1")))
				.andExpect(jsonPath("$.jobs[?(@.id == " + queued + ")].worker").value(contains(nullValue())));
		});
	}

	/** "Queued" is told apart: due now, delayed, or waiting out a retry backoff (the database's clock). */
	@Test
	void overviewSplitsQueuedJobsByWhyTheyWait() {
		DashboardContexts.runner().run((context) -> {
			context.getBean(JobQueue.class)
				.enqueueAll(List.of(Job.of("mail.send", 1).queue("mail"),
						Job.of("mail.send", 2).queue("mail").delay(Duration.ofHours(1)),
						Job.of("mail.send", 3).queue("mail").delay(Duration.ofHours(2)),
						Job.of("report.build", 4).queue("reports")));
			JobStore store = context.getBean(JobStore.class);
			JobRecord flaky = claim(store).get(0);
			store.reschedule(new Lease(flaky.id(), flaky.leaseToken()), "flaky", Duration.ofMinutes(5));
			DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/api/overview").with(user("ops")))
				.andExpect(jsonPath("$.queues[0].name").value("mail"))
				.andExpect(jsonPath("$.queues[0].jobs.QUEUED").value(3))
				.andExpect(jsonPath("$.queues[0].queued.due").value(1))
				.andExpect(jsonPath("$.queues[0].queued.delayed").value(2))
				.andExpect(jsonPath("$.queues[0].queued.backingOff").value(0))
				.andExpect(jsonPath("$.queues[1].name").value("reports"))
				.andExpect(jsonPath("$.queues[1].queued.due").value(0))
				.andExpect(jsonPath("$.queues[1].queued.backingOff").value(1));
		});
	}

	/**
	 * A job parked on a sleep or a wait for a signal is counted as parked, not as delayed (its
	 * park spent no attempt); the list finds the parked jobs, marks them, and shows every job's
	 * tags. A malformed {@code parked} is refused with the reason.
	 */
	@Test
	void overviewCountsParkedJobsApartAndTheListFindsThemWithTheirTags() {
		DashboardContexts.runner().run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			JobStore store = context.getBean(JobStore.class);
			long parked = jobs.enqueue(Job.of("report.build", 1).queue("reports").tags("month-end", "acme"));
			for (JobRecord job : claim(store)) {
				store.steps().recordSignalWait(parked, "approved", Duration.ofHours(1).toMillis());
				assertThat(store.park(new Lease(job.id(), job.leaseToken()), "signal", "approved", Duration.ZERO))
					.isTrue();
			}
			long delayed = jobs.enqueue(Job.of("report.build", 2).queue("reports").delay(Duration.ofHours(1)));
			MockMvc mvc = DashboardContexts.mvc(context);
			mvc.perform(get("/sqlqueue/api/overview").with(user("ops")))
				.andExpect(jsonPath("$.queues[0].name").value("reports"))
				.andExpect(jsonPath("$.queues[0].jobs.QUEUED").value(2))
				.andExpect(jsonPath("$.queues[0].queued.due").value(0))
				.andExpect(jsonPath("$.queues[0].queued.delayed").value(1))
				.andExpect(jsonPath("$.queues[0].queued.backingOff").value(0))
				.andExpect(jsonPath("$.queues[0].queued.parked").value(1));
			mvc.perform(get("/sqlqueue/api/jobs?parked=true").with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.jobs[*].id").value(contains((int) parked)));
			mvc.perform(get("/sqlqueue/api/jobs/count?parked=true&queue=reports").with(user("ops")))
				.andExpect(jsonPath("$.count").value(1))
				.andExpect(jsonPath("$.all").value(false));
			mvc.perform(get("/sqlqueue/api/jobs?queue=reports").with(user("ops")))
				.andExpect(jsonPath("$.jobs[*].id").value(contains((int) delayed, (int) parked)))
				.andExpect(jsonPath("$.jobs[*].parked").value(contains(false, true)))
				.andExpect(jsonPath("$.jobs[1].tags").value(contains("acme", "month-end")))
				.andExpect(jsonPath("$.jobs[0].tags", empty()));
			mvc.perform(get("/sqlqueue/api/jobs?parked=yes").with(user("ops")))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.detail").value("Invalid filter: 'parked' must be true or false, not 'yes'"));
		});
	}

	/**
	 * The page carries the overview and the tables' health as the API answers them, so that
	 * it draws them at once; nothing in them can end the data block. Where reads are refused it
	 * carries none, and says "Loading…" until the script's fetch says why.
	 */
	@Test
	void pageCarriesTheOverviewForItsFirstPaint() {
		DashboardContexts.runner().run((context) -> {
			context.getBean(JobQueue.class).enqueue(Job.of("mail.send", 1).queue("mail"));
			String page = DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/").with(user("ops")))
				.andExpect(status().isOk())
				.andReturn()
				.getResponse()
				.getContentAsString();
			String open = "<script type=\"application/json\" id=\"sqlqueue-first-paint\">";
			assertThat(page).contains(open).contains("<main id=\"main\"></main>").doesNotContain("Loading");
			String data = page.substring(page.indexOf(open) + open.length(), page.indexOf("</script>",
					page.indexOf(open)));
			assertThat(data).doesNotContain("<");
			Map<?, ?> first = JsonMapper.builder().build().readValue(data, Map.class);
			assertThat(first.keySet().stream().map(String::valueOf).toList()).containsExactlyInAnyOrder("overview", "tables");
			assertThat(((Map<?, ?>) first.get("overview")).get("queues")).asList().hasSize(1);
			assertThat(((Map<?, ?>) first.get("tables")).get("database")).isEqualTo("h2");
		});
		DashboardContexts.runner().withPropertyValues("management.endpoint.sqlqueue.access=NONE").run((context) -> {
			DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/").with(user("ops")))
				.andExpect(content().string(not(containsString("sqlqueue-first-paint"))))
				.andExpect(content().string(containsString("Loading…")));
		});
	}

	/** Counts the store estimates (a large PostgreSQL table) are marked, for the page's "≈". */
	@Test
	void overviewMarksTheCountsThatAreEstimates() {
		DashboardContexts.runner().withUserConfiguration(EstimatingReads.AsTheReadStore.class).run((context) -> {
			context.getBean(JobQueue.class).enqueue(Job.of("mail.send", 1).queue("mail"));
			DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/api/overview").with(user("ops")))
				.andExpect(jsonPath("$.queues[0].name").value("mail"))
				.andExpect(jsonPath("$.queues[0].jobs.QUEUED").value(1))
				.andExpect(jsonPath("$.queues[0].estimated").value(contains("QUEUED")));
		});
	}

	/**
	 * The tables' health as the queue last read it, with how old the reading is: the page
	 * never reads it itself.
	 */
	@Test
	void tablesShowTheLastReadingOfTheTablesHealth() {
		DashboardContexts.runner()
			.withBean(FixedTables.class)
			.run((context) -> DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/api/tables").with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.database").value("postgresql"))
				.andExpect(jsonPath("$.readingAgeMillis").value(greaterThanOrEqualTo(20_000)))
				.andExpect(jsonPath("$.tables[0].name").value("queue_job"))
				.andExpect(jsonPath("$.tables[0].deadRows").value(250))
				.andExpect(jsonPath("$.tables[0].freeBytes").doesNotExist())
				.andExpect(jsonPath("$.holders[0].pid").value(4242))
				.andExpect(jsonPath("$.holders[0].application").value("report-tool"))
				.andExpect(jsonPath("$.holders[0].ageMillis").value(420_000))
				.andExpect(jsonPath("$.notReported[0]").value("free space")));
	}

	/** A reading taken 20 s ago on PostgreSQL, with a session holding the horizon back. */
	static class FixedTables extends TableHealthMonitor {

		FixedTables(JobStore store) {
			super(store, new SimpleAsyncTaskScheduler(), Duration.ofHours(1));
		}

		@Override
		public void start() {
		}

		@Override
		public TableHealth latest() {
			return new TableHealth("postgresql", Instant.now().minusSeconds(20),
					List.of(new TableHealth.Table("queue_job", 1_000L, 250L, 81_920L, 16_384L, null)),
					List.of(new TableHealth.Holder(TableHealth.TRANSACTION, 4242L, null, "report-tool",
							"idle in transaction", Duration.ofMinutes(7), 1_500L, null)),
					null, List.of("free space"), null);
		}

	}

	/** An instance that runs no maintenance takes no reading, and says so. */
	@Test
	void tablesSayWhenThisInstanceTakesNoReading() {
		DashboardContexts.runner()
			.run((context) -> DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/api/tables").with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.database").value("h2"))
				.andExpect(jsonPath("$.readAt").doesNotExist())
				.andExpect(jsonPath("$.tables").isEmpty()));
	}

	/** A schedule's interval reads as an operator says it, not as ISO-8601 ({@code PT1M30S}). */
	@Test
	void overviewShowsAScheduleIntervalInWords() {
		DashboardContexts.runner().run((context) -> {
			context.getBean(Schedules.class)
				.create(ScheduleDefinition.of("sync", "report.sync", Recurrence.every(Duration.ofSeconds(90))));
			DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/api/overview").with(user("ops")))
				.andExpect(jsonPath("$.schedules[0].name").value("sync"))
				.andExpect(jsonPath("$.schedules[0].when").value("every 1 min 30 s"));
		});
	}

	/** A limited queue shows its limits, and the due jobs they hold back, even before it has jobs. */
	@Test
	void overviewShowsEachQueuesLimitsAndTheJobsTheyHoldBack() {
		DashboardContexts.runner().run((context) -> {
			FlowControl limits = context.getBean(FlowControl.class);
			limits.setLimit("payments", Limit.concurrency(5).withRate(1, Duration.ofHours(1)));
			limits.setKeyLimit("payments", "customer:*", Limit.concurrency(2));
			limits.setLimit("idle", Limit.concurrency(1));
			context.getBean(JobQueue.class)
				.enqueueAll(List.of(Job.of("charge", 1).queue("payments"), Job.of("charge", 2).queue("payments"),
						Job.of("charge", 3).queue("payments")));
			DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/api/overview").with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.queues[0].name").value("idle"))
				.andExpect(jsonPath("$.queues[0].limits", contains("queue: concurrency 1")))
				.andExpect(jsonPath("$.queues[0].jobs.QUEUED").value(0))
				.andExpect(jsonPath("$.queues[1].name").value("payments"))
				.andExpect(jsonPath("$.queues[1].limits",
						contains("queue: concurrency 5, rate 1/1h", "customer:*: concurrency 2")))
				.andExpect(jsonPath("$.queues[1].throttled.queue-rate").value(2));
		});
	}

	/**
	 * A fair queue shows its fair turns and the five keys with the most jobs due (then by key;
	 * the jobs without a key sort first), with their share of starts.
	 */
	@Test
	void overviewShowsAFairQueuesTurnsAndItsKeys() {
		DashboardContexts.runner().run((context) -> {
			context.getBean(FlowControl.class).setFairness("imports", Fairness.roundRobin().withWeight("gold:*", 3));
			List<Job> jobs = new java.util.ArrayList<>();
			for (int i = 0; i < 8; i++) {
				jobs.add(Job.of("load", i).queue("imports").concurrencyKey("key-" + (i % 7)));
			}
			jobs.add(Job.of("load", 9).queue("imports"));
			context.getBean(JobQueue.class).enqueueAll(jobs);
			DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/api/overview").with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.queues[0].name").value("imports"))
				.andExpect(jsonPath("$.queues[0].limits", contains("fair turns: weighted {gold:*=3}",
						"key-0: 2 due, 0% of starts", "(no key): 1 due, 0% of starts", "key-1: 1 due, 0% of starts",
						"key-2: 1 due, 0% of starts", "key-3: 1 due, 0% of starts")));
		});
	}

	@Test
	void jobsAreFilteredAndPagedByKeyset() {
		DashboardContexts.runner().run((context) -> {
			List<Long> ids = context.getBean(JobQueue.class)
				.enqueueAll(List.of(Job.of("mail.send", 1).queue("mail").uniqueKey("welcome:ada"),
						Job.of("mail.send", 2).queue("mail").groupKey("customer-7"),
						Job.of("report.build", 3).queue("reports"), Job.of("report.build", 4).queue("reports"),
						Job.of("mail.digest", 5).queue("mail")));
			DashboardContexts.fail(context, "reports", "java.lang.IllegalStateException: <b>down</b>\n\tat x",
					"report.build");
			MockMvc mvc = DashboardContexts.mvc(context);
			String first = mvc.perform(get("/sqlqueue/api/jobs?limit=2").with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.jobs[*].id").value(contains(ids.get(4).intValue(), ids.get(3).intValue())))
				.andExpect(jsonPath("$.newer").value(nullValue()))
				.andExpect(jsonPath("$.older").value(ids.get(3).intValue()))
				.andReturn()
				.getResponse()
				.getContentAsString();
			assertThat(first).doesNotContain("payload");
			mvc.perform(get("/sqlqueue/api/jobs?limit=2&before=" + ids.get(3)).with(user("ops")))
				.andExpect(jsonPath("$.jobs[*].id").value(contains(ids.get(2).intValue(), ids.get(1).intValue())))
				.andExpect(jsonPath("$.newer").value(ids.get(2).intValue()));
			mvc.perform(get("/sqlqueue/api/jobs?limit=2&after=" + ids.get(2)).with(user("ops")))
				.andExpect(jsonPath("$.jobs[*].id").value(contains(ids.get(4).intValue(), ids.get(3).intValue())))
				.andExpect(jsonPath("$.newer").value(nullValue()));
			mvc.perform(get("/sqlqueue/api/jobs?queue=mail").with(user("ops")))
				.andExpect(jsonPath("$.jobs[*].id")
					.value(contains(ids.get(4).intValue(), ids.get(1).intValue(), ids.get(0).intValue())));
			mvc.perform(get("/sqlqueue/api/jobs?queue=mail&handler=mail.send").with(user("ops")))
				.andExpect(jsonPath("$.jobs[*].id").value(contains(ids.get(1).intValue(), ids.get(0).intValue())));
			mvc.perform(get("/sqlqueue/api/jobs?status=failed").with(user("ops")))
				.andExpect(jsonPath("$.jobs[*].id").value(contains(ids.get(3).intValue(), ids.get(2).intValue())))
				.andExpect(jsonPath("$.jobs[0].errorHead").value(startsWith("java.lang.IllegalStateException: <b>down</b>")));
			mvc.perform(get("/sqlqueue/api/jobs?search=welcome:ada").with(user("ops")))
				.andExpect(jsonPath("$.jobs[*].id").value(contains(ids.get(0).intValue())));
			mvc.perform(get("/sqlqueue/api/jobs?search=customer-7").with(user("ops")))
				.andExpect(jsonPath("$.jobs[*].id").value(contains(ids.get(1).intValue())));
			mvc.perform(get("/sqlqueue/api/jobs?search=" + ids.get(2)).with(user("ops")))
				.andExpect(jsonPath("$.jobs[*].id").value(contains(ids.get(2).intValue())));
			mvc.perform(get("/sqlqueue/api/jobs?queue=nowhere").with(user("ops")))
				.andExpect(jsonPath("$.jobs", empty()))
				.andExpect(jsonPath("$.older").value(nullValue()));
		});
	}

	@Test
	void malformedParametersAreRefusedWithTheReason() {
		DashboardContexts.runner().run((context) -> {
			MockMvc mvc = DashboardContexts.mvc(context);
			String[][] cases = { { "status=DONE", "'status' must be one of" },
					{ "queue=x'; DROP TABLE queue_job; --", "'queue' must be a queue or handler name" },
					{ "handler=a b", "'handler' must be" }, { "before=abc", "'before' must be a job id" },
					{ "before=5&after=1", "not both" }, { "limit=0", "'limit' must be 1 to 500" },
					{ "limit=501", "'limit' must be 1 to 500" }, { "search=" + "k".repeat(256), "'search' must be" } };
			for (String[] bad : cases) {
				MockHttpServletRequestBuilder request = get("/sqlqueue/api/jobs").with(user("ops"));
				for (String parameter : bad[0].split("&")) {
					request.queryParam(parameter.substring(0, parameter.indexOf('=')),
							parameter.substring(parameter.indexOf('=') + 1));
				}
				mvc.perform(request)
					.andExpect(status().isBadRequest())
					.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
					.andExpect(jsonPath("$.detail").value(containsString(bad[1])));
			}
			mvc.perform(get("/sqlqueue/api/jobs/abc").with(user("ops"))).andExpect(status().isBadRequest());
			mvc.perform(get("/sqlqueue/api/jobs/424242").with(user("ops")))
				.andExpect(status().isNotFound())
				.andExpect(jsonPath("$.detail").value("No job 424242"));
		});
	}

	@Test
	void jobDetailShowsItsTimelineAndErrorButNotItsPayload() {
		DashboardContexts.runner().run((context) -> {
			long id = context.getBean(JobQueue.class).enqueue(Job.of("report.build", "secret").queue("reports"));
			DashboardContexts.fail(context, "reports", "java.lang.IllegalStateException: no\n\tat a.b(C.java:1)",
					"report.build");
			DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/api/jobs/" + id).with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.status").value("FAILED"))
				.andExpect(jsonPath("$.lastError").value("java.lang.IllegalStateException: no\n\tat a.b(C.java:1)"))
				.andExpect(jsonPath("$.payload").value(nullValue()))
				.andExpect(jsonPath("$.payloadShown").value(false))
				.andExpect(jsonPath("$.actions").value(contains("retry")))
				.andExpect(jsonPath("$.timeline[*].event").value(contains("enqueued", "started", "ended", "finished")))
				.andExpect(jsonPath("$.timeline[1].owner").value("test-worker"))
				.andExpect(jsonPath("$.timeline[2].text").value("Attempt 1 ended: failed"))
				.andExpect(jsonPath("$.timeline[2].error").value("java.lang.IllegalStateException: no\n\tat a.b(C.java:1)"))
				.andExpect(jsonPath("$.timeline[3].text").value("Failed for good after 1 attempt"));
		});
		DashboardContexts.runner().withPropertyValues("management.endpoint.sqlqueue.show-payload=true").run((context) -> {
			long id = context.getBean(JobQueue.class).enqueue(Job.of("report.build", "<script>x</script>"));
			DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/api/jobs/" + id).with(user("ops")))
				.andExpect(jsonPath("$.payload").value("<script>x</script>"))
				.andExpect(jsonPath("$.payloadShown").value(true))
				.andExpect(jsonPath("$.actions").value(contains("cancel")));
		});
	}

	/**
	 * An operator's retry starts the count of attempts again; the timeline, read from the
	 * attempts the database keeps, never names two attempts alike.
	 */
	@Test
	void timelineNamesTheAttemptsAfterAnOperatorsRetryByThatRetry() {
		DashboardContexts.runner().run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			JobStore store = context.getBean(JobStore.class);
			long finished = jobs.enqueue(Job.of("report.build", 1).queue("reports").maxAttempts(1));
			long running = jobs.enqueue(Job.of("report.build", 2).queue("reports").maxAttempts(1));
			for (JobRecord job : claim(store)) {
				store.fail(new Lease(job.id(), job.leaseToken()), "broken");
			}
			assertThat(jobs.retry(finished)).isTrue();
			assertThat(jobs.retry(running)).isTrue();
			for (JobRecord job : claim(store)) {
				if (job.id() == finished) {
					store.complete(List.of(new Completion(new Lease(job.id(), job.leaseToken()), null)));
				}
			}
			MockMvc mvc = DashboardContexts.mvc(context);
			mvc.perform(get("/sqlqueue/api/jobs/" + finished).with(user("ops")))
				.andExpect(jsonPath("$.timeline[*].text").value(contains("Enqueued", "Attempt 1 started",
						"Attempt 1 ended: failed",
						"Queued again by an operator (operator retry 1), with a fresh set of attempts; by this time at the latest",
						"Operator retry 1, attempt 1 started", "Operator retry 1, attempt 1 ended: succeeded",
						"Succeeded after 1 attempt of operator retry 1")))
				.andExpect(jsonPath("$.timeline[2].error").value("broken"));
			// The attempt after the retry runs now: the row alone tells of it and of the retry.
			mvc.perform(get("/sqlqueue/api/jobs/" + running).with(user("ops")))
				.andExpect(jsonPath("$.timeline[*].event").value(contains("enqueued", "started", "ended", "requeued",
						"started")))
				.andExpect(jsonPath("$.timeline[4].text").value("Operator retry 1, attempt 1 started, running now"));
		});
	}

	/** Attempts that ended with no row (an older instance ran them) are counted, not invented. */
	@Test
	void timelineCountsTheAttemptsWithNoRecord() {
		DashboardContexts.runner().run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			JobStore store = context.getBean(JobStore.class);
			long id = jobs.enqueue(Job.of("report.build", 1).queue("reports").maxAttempts(3));
			store.attempts().setEnabled(false);
			for (JobRecord job : claim(store)) {
				store.reschedule(new Lease(job.id(), job.leaseToken()), "old broke", Duration.ZERO);
			}
			store.attempts().setEnabled(true);
			for (JobRecord job : claim(store)) {
				store.complete(List.of(new Completion(new Lease(job.id(), job.leaseToken()), null)));
			}
			DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/api/jobs/" + id).with(user("ops")))
				.andExpect(jsonPath("$.timeline[*].event").value(contains("enqueued", "unrecorded", "started", "ended",
						"finished")))
				.andExpect(jsonPath("$.timeline[1].text").value(startsWith("1 attempt with no record")))
				.andExpect(jsonPath("$.timeline[2].text").value("Attempt 2 started"));
		});
	}

	/**
	 * A job's steps and signals, and a job parked waiting for a signal reads as parked: the
	 * run that parked spent no attempt and is no operator's retry. Once the signal comes, it
	 * is due, no longer parked.
	 */
	@Test
	void jobDetailShowsItsStepsAndSignalsAndThatItIsParked() {
		DashboardContexts.runner().run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			JobStore store = context.getBean(JobStore.class);
			long id = jobs.enqueue(Job.of("report.build", 1).queue("reports").maxAttempts(3));
			for (JobRecord job : claim(store)) {
				store.reschedule(new Lease(job.id(), job.leaseToken()), "flaky", Duration.ZERO);
			}
			pause();
			for (JobRecord job : claim(store)) {
				store.steps().recordStep(id, "render", "{\"pages\":3}");
				store.steps().recordSignalWait(id, "approved", Duration.ofHours(1).toMillis());
				assertThat(store.park(new Lease(job.id(), job.leaseToken()), "signal", "approved", Duration.ZERO))
					.isTrue();
			}
			MockMvc mvc = DashboardContexts.mvc(context);
			mvc.perform(get("/sqlqueue/api/jobs/" + id).with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.status").value("QUEUED"))
				.andExpect(jsonPath("$.attempts").value(1))
				// The run that parked is attempt 2, as the timeline names it; the row counts 1.
				.andExpect(jsonPath("$.currentAttempt").value(2))
				// The row keeps the worker of the run that parked; it holds nothing now.
				.andExpect(jsonPath("$.leaseOwner").value("test-worker"))
				.andExpect(jsonPath("$.worker").value(nullValue()))
				.andExpect(jsonPath("$.parked.kind").value("SIGNAL"))
				.andExpect(jsonPath("$.parked.name").value("approved"))
				.andExpect(jsonPath("$.parked.wakeAt").value(not(nullValue())))
				.andExpect(jsonPath("$.steps[*].kind").value(contains("STEP", "SIGNAL")))
				.andExpect(jsonPath("$.steps[0].name").value("render"))
				.andExpect(jsonPath("$.steps[0].result.pages").value(3))
				.andExpect(jsonPath("$.steps[1].name").value("approved"))
				.andExpect(jsonPath("$.steps[1].wakeAt").value(not(nullValue())))
				.andExpect(jsonPath("$.steps[1].timedOut").value(false))
				.andExpect(jsonPath("$.signals", empty()))
				.andExpect(jsonPath("$.timeline[*].text").value(contains(is("Enqueued"), is("Attempt 1 started"),
						is("Attempt 1 ended: retried"), is("Attempt 2 started"),
						is("Attempt 2 parked: waiting for signal 'approved' until"),
						is("Due again (its wait for signal 'approved' times out, unless the signal comes first)"))))
				// The wake time is the page's to write, in its format: never raw in the text.
				.andExpect(jsonPath("$.timeline[4].about").value(not(nullValue())))
				.andExpect(jsonPath("$.timeline[0].about").value(nullValue()));
			jobs.signal(id, "approved", java.util.Map.of("by", "ada"));
			mvc.perform(get("/sqlqueue/api/jobs/" + id).with(user("ops")))
				.andExpect(jsonPath("$.parked").value(nullValue()))
				.andExpect(jsonPath("$.signals[0].name").value("approved"))
				.andExpect(jsonPath("$.signals[0].payload").value(nullValue()))
				.andExpect(jsonPath("$.signals[0].sentAt").value(not(nullValue())))
				.andExpect(jsonPath("$.timeline[5].text").value("Due again (signal 'approved' came)"));
			long plain = jobs.enqueue("mail.send", 2);
			mvc.perform(get("/sqlqueue/api/jobs/" + plain).with(user("ops")))
				.andExpect(jsonPath("$.steps", empty()))
				.andExpect(jsonPath("$.signals", empty()))
				.andExpect(jsonPath("$.parked").value(nullValue()));
		});
		DashboardContexts.runner().withPropertyValues("management.endpoint.sqlqueue.show-payload=true").run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			JobStore store = context.getBean(JobStore.class);
			long id = jobs.enqueue(Job.of("report.build", 1).queue("reports"));
			jobs.signal(id, "approved", java.util.Map.of("by", "ada"));
			for (JobRecord job : claim(store)) {
				store.steps().recordSleep(id, "1", Duration.ofMinutes(5).toMillis());
				store.park(new Lease(job.id(), job.leaseToken()), "sleep", "1", Duration.ZERO);
			}
			DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/api/jobs/" + id).with(user("ops")))
				.andExpect(jsonPath("$.signals[0].payload.by").value("ada"))
				.andExpect(jsonPath("$.steps[0].kind").value("SLEEP"))
				.andExpect(jsonPath("$.parked.kind").value("SLEEP"))
				.andExpect(jsonPath("$.currentAttempt").value(1))
				.andExpect(jsonPath("$.attempts").value(0))
				.andExpect(jsonPath("$.timeline[*].text").value(contains(is("Enqueued"), is("Attempt 1 started"),
						is("Attempt 1 parked: sleeping until"), is("Due again (its sleep ends)"))));
		});
	}

	/** Lets the database's clock move on, so that events do not share a moment. */
	private static void pause() {
		try {
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static List<JobRecord> claim(JobStore store) {
		return store.claim(new ClaimRequest("test-worker", "reports", List.of("report.build"), 10, 60_000));
	}

	@Test
	void jobDetailSaysWhenThisInstanceHasNoHandlerForAJobYetToRun() {
		DashboardContexts.runner().withBean("reports", Reports.class).run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			long typo = jobs.enqueue("report.biuld", 1);
			long known = jobs.enqueue("report.build", 2);
			MockMvc mvc = DashboardContexts.mvc(context);
			mvc.perform(get("/sqlqueue/api/jobs/" + typo).with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.handlerNotice").value(startsWith(
						"This instance has no handler named 'report.biuld'. Did you mean 'report.build'?")))
				.andExpect(jsonPath("$.handlerNotice").value(containsString("if no running instance has it")));
			mvc.perform(get("/sqlqueue/api/jobs/" + known).with(user("ops")))
				.andExpect(jsonPath("$.handlerNotice").value(nullValue()));
			jobs.cancel(typo);
			mvc.perform(get("/sqlqueue/api/jobs/" + typo).with(user("ops")))
				.andExpect(jsonPath("$.handlerNotice").value(nullValue()));
		});
	}

	@Test
	void jobDetailShowsItsWorkflowInLevelsAndABatchShowsItsProgress() {
		DashboardContexts.runner().run((context) -> {
			JobQueue jobs = context.getBean(JobQueue.class);
			BatchIds batch = jobs.enqueue(Batch.of(List.of(Job.of("report.build", 1), Job.of("report.build", 2)))
				.callback(Job.of("report.bundle", null)));
			long first = batch.jobIds().get(0);
			long after = jobs.enqueue(Job.of("mail.send", 3).after(first, batch.callbackId()));
			long plain = jobs.enqueue("mail.send", 4);
			MockMvc mvc = DashboardContexts.mvc(context);
			mvc.perform(get("/sqlqueue/api/overview").with(user("ops")))
				.andExpect(jsonPath("$.queues[0].jobs.WAITING").value(2))
				.andExpect(jsonPath("$.queues[0].jobs.QUEUED").value(3));
			mvc.perform(get("/sqlqueue/api/jobs/" + after).with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.status").value("WAITING"))
				.andExpect(jsonPath("$.actions").value(contains("cancel")))
				.andExpect(jsonPath("$.workflow.waitingFor").value(2))
				.andExpect(jsonPath("$.workflow.dependencies[*].id").value(contains((int) first,
						batch.callbackId().intValue())))
				.andExpect(jsonPath("$.workflow.levels", hasSize(2)))
				.andExpect(jsonPath("$.workflow.levels[0][*].id").value(contains((int) first,
						batch.callbackId().intValue())))
				.andExpect(jsonPath("$.workflow.levels[1][0].id").value((int) after));
			mvc.perform(get("/sqlqueue/api/jobs/" + first).with(user("ops")))
				.andExpect(jsonPath("$.workflow.batch.id").value((int) batch.batchId()))
				.andExpect(jsonPath("$.workflow.batch.pending").value(2))
				.andExpect(jsonPath("$.workflow.dependents[0].status").value("WAITING"));
			mvc.perform(get("/sqlqueue/api/jobs/" + plain).with(user("ops")))
				.andExpect(jsonPath("$.workflow").value(nullValue()));
			DashboardContexts.fail(context, "default", "broken", "report.build");
			mvc.perform(get("/sqlqueue/api/batches/" + batch.batchId()).with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.total").value(2))
				.andExpect(jsonPath("$.failed").value(2))
				.andExpect(jsonPath("$.pending").value(0))
				.andExpect(jsonPath("$.callbackId").value(batch.callbackId().intValue()));
			mvc.perform(get("/sqlqueue/api/jobs?batch=" + batch.batchId()).with(user("ops")))
				.andExpect(jsonPath("$.jobs[*].id").value(contains(batch.jobIds().get(1).intValue(), (int) first)));
			mvc.perform(get("/sqlqueue/api/jobs?limit=1&status=FAILED&batch=" + batch.batchId()).with(user("ops")))
				.andExpect(jsonPath("$.jobs[*].id").value(contains(batch.jobIds().get(1).intValue())))
				.andExpect(jsonPath("$.older").value(batch.jobIds().get(1).intValue()));
			mvc.perform(get("/sqlqueue/api/jobs?batch=x").with(user("ops")))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.detail").value("'batch' must be a batch id"));
			mvc.perform(get("/sqlqueue/api/batches/424242").with(user("ops")))
				.andExpect(status().isNotFound())
				.andExpect(jsonPath("$.detail").value("No batch 424242"));
			mvc.perform(get("/sqlqueue/api/batches/abc").with(user("ops")))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.detail").value("Not a batch id: 'abc'"));
		});
	}

	@Test
	void pageCarriesSpringSecuritysCsrfTokenAndProtectiveHeaders() {
		DashboardContexts.runner().run((context) -> {
			MockMvc mvc = DashboardContexts.mvc(context);
			String page = mvc.perform(get("/sqlqueue/").with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(content().contentTypeCompatibleWith(MediaType.TEXT_HTML))
				.andExpect(header().string("Content-Security-Policy", containsString("frame-ancestors 'none'")))
				.andExpect(header().string("Content-Security-Policy", containsString("script-src 'self';")))
				.andExpect(header().string("X-Content-Type-Options", "nosniff"))
				.andReturn()
				.getResponse()
				.getContentAsString();
			assertThat(page).contains("<meta name=\"sqlqueue-csrf-header\" content=\"X-CSRF-TOKEN\">")
				.containsPattern("<meta name=\"sqlqueue-csrf-token\" content=\"[A-Za-z0-9_=-]{20,}\">")
				.contains("<meta name=\"sqlqueue-actions\" content=\"false\">")
				.contains("sqlqueue.dashboard.actions-enabled=true")
				.doesNotContain("{{")
				.doesNotContain("<script>")
				.contains("<script src=\"assets/dashboard.js\" defer></script>");
			mvc.perform(get("/sqlqueue").with(user("ops")))
				.andExpect(status().isFound())
				.andExpect(header().string("Location", "sqlqueue/"));
			mvc.perform(get("/sqlqueue/assets/dashboard.js").with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(content().contentTypeCompatibleWith("text/javascript"))
				.andExpect(content().string(containsString("textContent")))
				.andExpect(content().string(not(containsString(".innerHTML"))));
			mvc.perform(get("/sqlqueue/assets/dashboard.css").with(user("ops"))).andExpect(status().isOk());
		});
	}

	@Test
	void movesToAnotherPath() {
		DashboardContexts.runner().withPropertyValues("sqlqueue.dashboard.path=/ops/queue").run((context) -> {
			MockMvc mvc = DashboardContexts.mvc(context);
			mvc.perform(get("/ops/queue/api/overview").with(user("ops"))).andExpect(status().isOk());
			mvc.perform(get("/ops/queue").with(user("ops"))).andExpect(header().string("Location", "queue/"));
			mvc.perform(get("/sqlqueue/api/overview").with(user("ops"))).andExpect(status().isNotFound());
		});
	}

	@Test
	void theReadmesRuleKeepsTheDashboardForOperators() {
		DashboardContexts.runner().withUserConfiguration(OperatorsOnly.class).run((context) -> {
			MockMvc mvc = DashboardContexts.mvc(context);
			mvc.perform(get("/sqlqueue/api/overview").with(user("ops").roles("OPS"))).andExpect(status().isOk());
			mvc.perform(get("/sqlqueue/api/overview").with(user("ada").roles("USER"))).andExpect(status().isForbidden());
			mvc.perform(get("/sqlqueue/api/overview")).andExpect(status().is(not(200)));
		});
	}

	@Test
	void endpointSwitchedOffRefusesEveryRead() {
		DashboardContexts.runner().withPropertyValues("management.endpoint.sqlqueue.access=NONE").run((context) -> {
			DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/api/overview").with(user("ops")))
				.andExpect(status().isForbidden())
				.andExpect(jsonPath("$.detail").value(containsString("management.endpoint.sqlqueue.access=none")));
			DashboardContexts.mvc(context)
				.perform(get("/sqlqueue/api/jobs").with(user("ops")))
				.andExpect(status().isForbidden());
		});
	}

	/** The rule docs/dashboard.md shows. */
	@Configuration(proxyBeanMethods = false)
	static class OperatorsOnly {

		@Bean
		SecurityFilterChain security(HttpSecurity http) throws Exception {
			http.authorizeHttpRequests((requests) -> requests.requestMatchers("/sqlqueue/**")
				.hasRole("OPS")
				.anyRequest()
				.permitAll()).formLogin(Customizer.withDefaults());
			return http.build();
		}

	}
	static class Reports {

		@io.sqlqueue.JobHandler("report.build")
		void build(int id) {
		}

	}

}
