package io.sqlqueue.testkit;

import java.util.List;

import io.sqlqueue.internal.store.ClusterStore;
import io.sqlqueue.internal.store.InstanceRow;

/**
 * The instances on the tests' database that run jobs and are not tests: a development or
 * production application pointed at the same database. Its Manager would claim the tests'
 * jobs, and a test's {@code reset()} would delete its jobs, so the test kit refuses both.
 * <p>
 * A test is an instance whose worker id ends with {@link SqlQueueTester#TEST_INSTANCE_SUFFIX},
 * which the test kit gives every Manager it lets run in the background (this test's, another
 * test context's, another test JVM's). Not the process: an application started from a test
 * JVM, without the test kit, is an application. An instance that missed its beats (crashed,
 * or stopped without deleting its row) runs nothing and is not counted.
 */
final class LiveInstances {

	private final ClusterStore cluster;

	LiveInstances(ClusterStore cluster) {
		this.cluster = cluster;
	}

	/**
	 * @param action what the test asked for, as the refusal names it ("reset the queue")
	 * @throws IllegalStateException naming each live instance that is not a test
	 */
	void refuseIfAnyIsNotATest(String action) {
		List<InstanceRow> others = this.cluster.instances()
			.stream()
			.filter((row) -> !row.gone() && !isTest(row))
			.toList();
		if (others.isEmpty()) {
			return;
		}
		StringBuilder message = new StringBuilder("Refusing to ").append(action)
			.append(": this database has ")
			.append((others.size() == 1) ? "a live instance" : others.size() + " live instances")
			.append(" that ")
			.append((others.size() == 1) ? "is" : "are")
			.append(" not a test");
		for (InstanceRow row : others) {
			message.append("\n  - ")
				.append(row.id())
				.append(" on host ")
				.append(row.host())
				.append(", pid ")
				.append(row.pid())
				.append(", last beat ")
				.append(row.sinceSeen().toMillis() / 1000)
				.append(" s ago (")
				.append(row.lastSeen())
				.append("), serving ")
				.append(row.queues());
		}
		message.append("\nIt would claim the tests' jobs, and reset() would delete its jobs. Give the tests a "
				+ "database of their own: where Docker is, a Testcontainers container with @ServiceConnection; "
				+ "otherwise a database (or schema) that only the tests use, named by spring.datasource.url in "
				+ "src/test/resources/application-test.properties, with @ActiveProfiles(\"test\") on the test "
				+ "classes. See docs/testing.md#a-database-of-the-tests-own.");
		throw new IllegalStateException(message.toString());
	}

	private static boolean isTest(InstanceRow row) {
		return row.id().endsWith(SqlQueueTester.TEST_INSTANCE_SUFFIX);
	}

}
