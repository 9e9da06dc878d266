package io.sqlqueue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import io.sqlqueue.store.ClaimMethod;
import io.sqlqueue.store.ClaimRequest;
import io.sqlqueue.store.Completion;
import io.sqlqueue.store.JobStore;
import io.sqlqueue.store.Lease;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class PostgresConformanceIT extends QueueConformanceTests {

	@Override
	protected TestDatabase database() {
		return TestDatabase.POSTGRESQL;
	}

	@Override
	protected int concurrencyJobs() {
		return 10_000;
	}

	/**
	 * A job with more dependents than one PostgreSQL statement can bind (65,535 parameters)
	 * records its success and releases every one of them once: settling binds a bounded
	 * number of ids per statement. (The same code on every database; only here is the limit
	 * low enough to reach in a test.)
	 */
	@Test
	void aJobWithMoreDependentsThanOneStatementBindsReleasesThemAll() {
		assumeTrue(claimMethod() == ClaimMethod.UPDATE_RETURNING, "the claim plays no part: once is enough");
		int total = 65_600;
		long root = this.fixture.queue().enqueue("root", null);
		List<Job> dependents = new ArrayList<>();
		for (int i = 0; i < total; i++) {
			dependents.add(Job.of("dependent", null).after(root));
		}
		this.fixture.queue().enqueueAll(dependents);
		JobStore store = this.fixture.store();
		JobRecord claimed = store.claim(new ClaimRequest("w", "default", List.of("root"), 1, 30_000)).get(0);
		assertThat(store.complete(List.of(new Completion(new Lease(root, claimed.leaseToken()), null))))
			.containsExactly(true);
		assertThat(this.fixture.count("handler = 'dependent' AND status = 'QUEUED' AND waiting_for = 0"))
			.isEqualTo(total);
		assertThat(this.fixture.count("settles <> 0")).isZero();
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
