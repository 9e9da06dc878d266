package io.sqlqueue;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import io.sqlqueue.store.ClaimRequest;
import io.sqlqueue.store.JobStore;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresConformanceIT extends QueueConformanceTests {

	@Override
	protected TestDatabase database() {
		return TestDatabase.POSTGRESQL;
	}

	@Override
	protected int concurrencyJobs() {
		return 10_000;
	}

	/** The claim turns off waiting for the disk for its own transaction only, never for the connection. */
	@Test
	void claimLeavesTheConnectionsSynchronousCommitAsItWas() throws Exception {
		this.fixture.queue().enqueue("work", null);
		try (SingleConnectionDataSource one = new SingleConnectionDataSource(
				this.database.dataSource().getConnection(), true)) {
			JobStore store = this.fixture.newStore(one);
			JdbcTemplate jdbc = new JdbcTemplate(one);
			assertThat(jdbc.queryForObject("SHOW synchronous_commit", String.class)).isEqualTo("on");
			assertThat(store.claim(new ClaimRequest("w", "default", List.of("work"), 10, 30_000))).hasSize(1);
			assertThat(jdbc.queryForObject("SHOW synchronous_commit", String.class)).isEqualTo("on");
		}
	}

}
