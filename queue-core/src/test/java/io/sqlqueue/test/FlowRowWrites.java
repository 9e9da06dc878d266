package io.sqlqueue.test;

import java.util.List;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.Job;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.internal.store.ClaimRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counts the writes of a queue's flow row by one limited claim that starts a job, on MariaDB
 * or MySQL (a trigger counts them in a table: a write undone in the same transaction leaves
 * the row's version as it was, but still fires the trigger). A Galera node's claim writes the
 * row so that certification sees two nodes' claims collide; a plain server's does not.
 */
public final class FlowRowWrites {

	private FlowRowWrites() {
	}

	/** The flow row's writes by one limited claim of queue "default" that starts a job. */
	public static int ofALimitedClaim(QueueFixture fixture, TestDatabase.Isolated database) {
		fixture.flowControl().setLimit("default", Limit.concurrency(5));
		JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
		jdbc.execute("CREATE TABLE flow_row_writes (writes INT NOT NULL)");
		jdbc.execute("INSERT INTO flow_row_writes VALUES (0)");
		jdbc.execute("CREATE TRIGGER count_flow_row_writes AFTER UPDATE ON queue_flow "
				+ "FOR EACH ROW UPDATE flow_row_writes SET writes = writes + 1");
		fixture.queue().enqueue(Job.of("work", 1));
		assertThat(fixture.store()
			.claimJobs(new ClaimRequest("test-worker", "default", List.of("work"), 10, 30_000))
			.jobs()).as("the claim started the job").hasSize(1);
		Integer writes = jdbc.queryForObject("SELECT writes FROM flow_row_writes", Integer.class);
		return (writes != null) ? writes : 0;
	}

}
