package io.sqlqueue;

import java.time.Instant;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import io.sqlqueue.internal.store.JobStore;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

class H2ConformanceTests extends QueueConformanceTests {

	@Override
	protected TestDatabase database() {
		return TestDatabase.H2;
	}

	/** The sweeps bound their lock waits with H2's session setting: the connection keeps its own. */
	@Test
	void sweepsGiveTheConnectionBackWithItsOwnLockTimeout() {
		try (HikariDataSource pool = this.database.newDataSource(1, "SET LOCK_TIMEOUT 7000")) {
			JobStore store = this.fixture.newStore(pool);
			this.fixture.queue()
				.enqueue(Job.of("nobody.handles.this", null).deadline(Instant.parse("2000-01-01T00:00:00Z")));
			assertThat(store.expirePassedDeadlines(10)).hasSize(1);
			assertThat(store.reapExpired(10, 3)).isEmpty();
			assertThat(new JdbcTemplate(pool).queryForObject("SELECT LOCK_TIMEOUT()", Long.class)).isEqualTo(7000L);
		}
	}

}
