package io.sqlqueue.internal.store;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import io.sqlqueue.internal.schema.QueueSchemaMigrator;
import io.sqlqueue.test.ConnectionHooks;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which of enqueueAll's two statements a batch takes on PostgreSQL: the one for bare jobs
 * ({@link Dialect#insertAllBare}) only when every job is bare, the one for every column as
 * soon as one job has any option. EnqueueConformance checks that both write the same rows.
 */
@ResourceLock(TestDatabase.POSTGRESQL_SERVER)
class PostgresJobInsertsIT {

	private static final Instant AT = Instant.parse("2026-11-28T12:00:00Z");

	private TestDatabase.Isolated database;

	private JobStore store;

	private JobSql sql;

	/** Every statement prepared on the store's connections, in order. */
	private final List<String> prepared = new CopyOnWriteArrayList<>();

	@BeforeEach
	void setUp() {
		this.database = TestDatabase.POSTGRESQL.isolated();
		new QueueSchemaMigrator(this.database.dataSource(), this.database.dialect(), this.database.schema()).migrate();
		this.store = new JobStore(recording(this.database.dataSource()), this.database.dialect(),
				this.database.schema());
		this.sql = new JobSql(this.database.dialect(), this.database.schema());
	}

	@AfterEach
	void tearDown() {
		this.database.close();
	}

	@Test
	void aBatchOfBareJobsTakesTheBareStatement() {
		assertThat(this.store.insert(List.of(bare("a"), bare("b"), bare("c")))).hasSize(3);
		assertThat(this.prepared).contains(this.sql.insertAllBare).doesNotContain(this.sql.insertAll);
	}

	@Test
	void aBatchWithAJobOfAnyOptionTakesTheStatementForEveryColumn() {
		List<NewJob> withAnOption = List.of(
				new NewJob("default", "h", "1", 0, AT, 0, 3, null, null, null, null, null, null, null),
				new NewJob("default", "h", "1", 0, null, 60_000, 3, null, null, null, null, null, null, null),
				new NewJob("default", "h", "1", 0, null, 0, 3, "unique", null, null, null, null, null, null),
				new NewJob("default", "h", "1", 0, null, 0, 3, null, "group", null, null, null, null, null),
				new NewJob("default", "h", "1", 0, null, 0, 3, null, null, AT, null, null, null, null),
				new NewJob("default", "h", "1", 0, null, 0, 3, null, null, null, 60_000L, null, null, null),
				new NewJob("default", "h", "1", 0, null, 0, 3, null, null, null, null, AT, null, null),
				new NewJob("default", "h", "1", 0, null, 0, 3, null, null, null, null, null, "{\"k\":\"v\"}", null),
				new NewJob("default", "h", "1", 0, null, 0, 3, null, null, null, null, null, null, "key"));
		for (NewJob job : withAnOption) {
			this.prepared.clear();
			assertThat(this.store.insert(List.of(bare("a"), job))).as("%s", job).hasSize(2);
			assertThat(this.prepared).as("%s", job)
				.contains(this.sql.insertAll)
				.doesNotContain(this.sql.insertAllBare);
		}
	}

	private static NewJob bare(String payload) {
		return new NewJob("default", "h", "\"" + payload + "\"", 5, null, 0, 7, null, null, null, null, null, null,
				null, List.of("tagged"), Map.of());
	}

	/** Connections of {@code dataSource} that note every statement prepared on them. */
	private DataSource recording(DataSource dataSource) {
		return ConnectionHooks.before(dataSource, (call, args) -> {
			if (call.equals("prepareStatement")) {
				this.prepared.add((String) args[0]);
			}
		});
	}

}
