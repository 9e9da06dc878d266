package io.sqlqueue.internal.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.sqlqueue.JobRecord;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.flow.Limit;
import io.sqlqueue.internal.manager.ManagerSettings;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The largest batch a Manager may claim ({@link ManagerSettings#MAX_BATCH_SIZE}) binds no more
 * parameters than each database takes: one limited claim of that many jobs, each of its own
 * key under a rate limit, so that the claim binds that many ids and reads that many keys'
 * windows. (With 32,769 it fails on PostgreSQL: "PreparedStatement can have at most 65,535
 * parameters".)
 */
@ResourceLock(TestDatabase.POSTGRESQL_SERVER)
@ResourceLock(TestDatabase.MARIADB_SERVER)
class LargestClaimIT {

	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = { "H2", "SQLITE", "POSTGRESQL", "MARIADB" })
	void aLimitedClaimOfTheLargestBatchTakesItWhole(TestDatabase database) throws Exception {
		int largest = ManagerSettings.MAX_BATCH_SIZE;
		try (TestDatabase.Isolated isolated = database.isolated();
				QueueFixture fixture = new QueueFixture(isolated, isolated.dialect().claimMethod(),
						new PayloadCodec(tools.jackson.databind.json.JsonMapper.builder().build(), 4096))) {
			fixture.flowControl().setKeyLimit("default", "*", Limit.rate(1, Duration.ofHours(1)));
			List<NewJob> jobs = new ArrayList<>(largest + 1);
			for (int i = 0; i <= largest; i++) {
				jobs.add(new NewJob("default", "work", "{}", 0, null, 0, 3, null, null, null, null, null, null,
						"customer:" + i));
			}
			fixture.store().insert(jobs);
			List<JobRecord> claimed = fixture.store()
				.claim(new ClaimRequest("largest", "default", List.of("work"), largest, 60_000));
			assertThat(claimed).hasSize(largest);
			assertThat(fixture.count("status = 'RUNNING'")).isEqualTo(largest);
		}
	}

}
