package io.sqlqueue;

import io.sqlqueue.test.TestDatabase;

class H2ConformanceTests extends QueueConformanceTests {

	@Override
	protected TestDatabase database() {
		return TestDatabase.H2;
	}

}
