package io.sqlqueue;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import io.sqlqueue.flow.FlowControl;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.internal.flow.DefaultFlowControl;
import io.sqlqueue.internal.store.ClaimMethod;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.internal.store.Completion;
import io.sqlqueue.internal.store.FlowStore;
import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.internal.store.Lease;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

@ResourceLock(TestDatabase.POSTGRESQL_SERVER)
class PostgresConformanceIT extends QueueConformanceTests {

	@Override
	protected TestDatabase database() {
		return TestDatabase.POSTGRESQL;
	}

	@Override
	public int concurrencyJobs() {
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

	/**
	 * A change of limits waits for the disk when it commits (its caller is told it has
	 * committed): it locks the queue's flow row as a claim does, but without the claim's
	 * settings. Read on each connection as it commits.
	 */
	@Test
	void aChangeOfLimitsCommitsWaitingForTheDisk() {
		List<String> atCommit = new CopyOnWriteArrayList<>();
		DataSource recording = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					Object result = method.invoke(this.database.dataSource(), args);
					return (result instanceof Connection connection) ? recordingCommits(connection, atCommit) : result;
				});
		FlowControl limits = new DefaultFlowControl(
				new FlowStore(recording, this.database.dialect(), this.database.schema()));
		limits.setLimit("default", Limit.concurrency(2));
		limits.setLimit("default", Limit.concurrency(3));
		assertThat(limits.removeLimit("default")).isTrue();
		assertThat(atCommit).hasSize(3).containsOnly("on");
	}

	private static Connection recordingCommits(Connection connection, List<String> atCommit) {
		return (Connection) Proxy.newProxyInstance(PostgresConformanceIT.class.getClassLoader(),
				new Class<?>[] { Connection.class }, (proxy, method, args) -> {
					if (method.getName().equals("commit")) {
						try (Statement statement = connection.createStatement();
								ResultSet rs = statement.executeQuery("SHOW synchronous_commit")) {
							rs.next();
							atCommit.add(rs.getString(1));
						}
					}
					return method.invoke(connection, args);
				});
	}

}
