package io.sqlqueue;

import io.sqlqueue.test.TestDatabase;

class PostgresConformanceIT extends QueueConformanceTests {

	@Override
	protected TestDatabase database() {
		return TestDatabase.POSTGRESQL;
	}

	@Override
	protected int concurrencyJobs() {
		return 10_000;
	}

}
