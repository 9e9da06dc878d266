package io.sqlqueue.admin;

import io.sqlqueue.test.TestDatabase;

/** {@link QueueAdminConformance} on H2. */
class H2QueueAdminTests extends QueueAdminConformance {

	@Override
	protected TestDatabase database() {
		return TestDatabase.H2;
	}

}
