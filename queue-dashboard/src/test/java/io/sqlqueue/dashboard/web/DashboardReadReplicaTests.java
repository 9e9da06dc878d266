package io.sqlqueue.dashboard.web;

import java.util.List;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.test.web.servlet.MockMvc;

import io.sqlqueue.JobQueue;
import io.sqlqueue.boot.autoconfigure.SqlQueueReadDataSource;
import io.sqlqueue.dashboard.DashboardContexts;
import io.sqlqueue.internal.schema.QueueSchemaMigrator;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.NewJob;
import io.sqlqueue.internal.store.h2.H2Dialect;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The dashboard with a read replica ({@code @SqlQueueReadDataSource}): its counts, job list
 * and counts of a filter come from the replica and say so ({@code reads}); a job's page, the
 * tables' health and every action stay on the queue's own database; a replica that cannot be
 * reached is a 503 that names it, for those reads only. The replica here is a second H2
 * database holding other jobs (the real standby is {@code ReadReplicaPostgresIT}'s).
 */
class DashboardReadReplicaTests {

	@Test
	void withoutAReplicaTheReadsSayTheyComeFromTheQueuesOwnDatabase() {
		DashboardContexts.runner().run((context) -> {
			context.getBean(JobQueue.class).enqueue("mail.send", 1);
			MockMvc mvc = DashboardContexts.mvc(context);
			mvc.perform(get("/sqlqueue/api/overview").with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.queues[0].jobs.QUEUED").value(1))
				.andExpect(jsonPath("$.reads.replica").value(false))
				.andExpect(jsonPath("$.reads.state").value("PRIMARY"))
				.andExpect(jsonPath("$.reads.behindMillis").value(0));
			mvc.perform(get("/sqlqueue/api/jobs").with(user("ops")))
				.andExpect(jsonPath("$.jobs", hasSize(1)))
				.andExpect(jsonPath("$.reads.replica").value(false));
		});
	}

	@Test
	void withAReplicaTheCountsAndListsComeFromItAndSaySo() {
		DashboardContexts.runner().withUserConfiguration(Replica.class).run((context) -> {
			long onPrimary = context.getBean(JobQueue.class).enqueue("mail.send", 1);
			new JobStore(context.getBean("replica", HikariDataSource.class), new H2Dialect(), null)
				.insert(List.of(new NewJob("replicated", "report.build", "{}", 0, null, 0, 3, null, null),
						new NewJob("replicated", "report.build", "{}", 0, null, 0, 3, null, null)));
			MockMvc mvc = DashboardContexts.mvc(context);
			mvc.perform(get("/sqlqueue/api/overview").with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.queues", hasSize(1)))
				.andExpect(jsonPath("$.queues[0].name").value("replicated"))
				.andExpect(jsonPath("$.queues[0].jobs.QUEUED").value(2))
				.andExpect(jsonPath("$.queues[0].queued.due").value(2))
				.andExpect(jsonPath("$.reads.replica").value(true))
				.andExpect(jsonPath("$.reads.state").value("UNKNOWN"))
				.andExpect(jsonPath("$.reads.behindMillis").value(nullValue()))
				.andExpect(jsonPath("$.reads.detail").value(containsString("h2")));
			mvc.perform(get("/sqlqueue/api/jobs").with(user("ops")))
				.andExpect(jsonPath("$.jobs", hasSize(2)))
				.andExpect(jsonPath("$.jobs[0].queue").value("replicated"))
				.andExpect(jsonPath("$.reads.replica").value(true));
			mvc.perform(get("/sqlqueue/api/jobs/count?queue=replicated").with(user("ops")))
				.andExpect(jsonPath("$.count").value(2))
				.andExpect(jsonPath("$.reads.state").value("UNKNOWN"));
			// A job's own page is read from the queue's database: what its actions act on.
			mvc.perform(get("/sqlqueue/api/jobs/" + onPrimary).with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.queue").value("default"));
		});
	}

	@Test
	void aReplicaThatCannotBeReachedIsA503ThatSaysSoForItsReadsOnly() {
		DashboardContexts.runner().withUserConfiguration(UnreachableReplica.class).run((context) -> {
			long id = context.getBean(JobQueue.class).enqueue("mail.send", 1);
			MockMvc mvc = DashboardContexts.mvc(context);
			for (String read : List.of("overview", "jobs", "jobs/count")) {
				mvc.perform(get("/sqlqueue/api/" + read).with(user("ops")))
					.andExpect(status().isServiceUnavailable())
					.andExpect(jsonPath("$.detail").value(containsString(
							"from the read replica (the @SqlQueueReadDataSource DataSource)")));
			}
			mvc.perform(get("/sqlqueue/api/jobs/" + id).with(user("ops"))).andExpect(status().isOk());
			mvc.perform(get("/sqlqueue/api/tables").with(user("ops"))).andExpect(status().isOk());
			mvc.perform(get("/sqlqueue/api/audit").with(user("ops"))).andExpect(status().isOk());
			// The page still comes, without the overview it could not read: its script's fetch says why.
			mvc.perform(get("/sqlqueue/").with(user("ops")))
				.andExpect(status().isOk())
				.andExpect(content().string(not(containsString("sqlqueue-first-paint"))))
				.andExpect(content().string(containsString("Loading…")));
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Replica {

		@Bean(defaultCandidate = false)
		@SqlQueueReadDataSource
		HikariDataSource replica() {
			HikariDataSource replica = new HikariDataSource();
			replica.setJdbcUrl("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
			new QueueSchemaMigrator(replica, new H2Dialect(), null).migrate();
			return replica;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnreachableReplica {

		@Bean(defaultCandidate = false)
		@SqlQueueReadDataSource
		DriverManagerDataSource replica() {
			// Nothing listens on port 1.
			return new DriverManagerDataSource("jdbc:h2:tcp://127.0.0.1:1/nowhere", "sa", "");
		}

	}

}
