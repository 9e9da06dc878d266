package io.sqlqueue.internal.store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.sqlqueue.DuplicateJobException;
import io.sqlqueue.JobRecord;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * MariaDB's writes of many jobs in one statement per chunk, on a real server: inserts as
 * multi-row {@code INSERT … RETURNING id}, each id matched to its own job.
 */
class MariaDbBatchWritesIT {

	private TestDatabase.Isolated database;

	private QueueFixture fixture;

	@BeforeEach
	void open() {
		this.database = TestDatabase.MARIADB.isolated();
		this.fixture = new QueueFixture(this.database, ClaimMethod.LOCK_THEN_UPDATE,
				new PayloadCodec(tools.jackson.databind.json.JsonMapper.builder().build(), 1 << 20));
		assertThat(this.database.dialect().insertReturningIds()).as("MariaDB inserts with RETURNING").isNotNull();
	}

	@AfterEach
	void close() throws Exception {
		this.fixture.close();
		this.database.close();
	}

	/** More jobs than one statement takes: each returned id is the row of its own job, with its own labels. */
	@Test
	void insertsJobsInChunksAndReturnsEachJobsOwnIdInOrder() {
		int count = 2 * RowChunks.MAX_ROWS + 201;
		List<NewJob> jobs = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			List<String> tags = (i % 100 == 7) ? List.of("t" + i) : List.of();
			Map<String, String> meta = (i % 100 == 7) ? Map.of("n", String.valueOf(i)) : Map.of();
			jobs.add(new NewJob("q" + (i % 3), "h" + i, "{\"n\":" + i + "}", i % 5, null, 0, 1 + i % 4, "key-" + i,
					null, null, null, null, null, null, tags, meta));
		}
		List<Long> ids = this.fixture.store().insert(jobs);
		assertThat(ids).hasSize(count).doesNotHaveDuplicates().isSorted();
		Map<Long, Integer> byId = payloadsById();
		for (int i = 0; i < count; i++) {
			assertThat(byId.get(ids.get(i))).as("the job of id %d", ids.get(i)).isEqualTo(i);
		}
		JobRecord labelled = this.fixture.job(ids.get(1007));
		assertThat(labelled.handler()).isEqualTo("h1007");
		assertThat(labelled.uniqueKey()).isEqualTo("key-1007");
		assertThat(labelled.maxAttempts()).isEqualTo(1 + 1007 % 4);
		assertThat(labelled.tags()).containsExactly("t1007");
		assertThat(labelled.meta()).containsExactly(Map.entry("n", "1007"));
		assertThat(this.fixture.job(ids.get(1008)).tags()).isEmpty();
	}

	/**
	 * Twenty megabytes of payloads in one call: in one statement they would pass MariaDB's
	 * {@code max_allowed_packet} (16 MiB by default) and be refused; chunked by their text,
	 * every job is inserted.
	 */
	@Test
	void largePayloadsAreSplitBelowTheServersPacketLimit() {
		Long packet = this.fixture.jdbc().queryForObject("SELECT @@max_allowed_packet", Long.class);
		String large = "\"" + "x".repeat(200_000) + "\"";
		int count = (int) (packet / large.length()) + 20;
		List<NewJob> jobs = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			jobs.add(new NewJob("default", "h" + i, large, 0, null, 0, 3, null, null));
		}
		List<Long> ids = this.fixture.store().insert(jobs);
		assertThat(ids).hasSize(count).isSorted();
		assertThat(this.fixture.count("LENGTH(payload) = " + large.length())).isEqualTo(count);
		assertThat(this.fixture.job(ids.get(count - 1)).handler()).isEqualTo("h" + (count - 1));
	}

	/** A taken unique key in the last chunk: nothing of the call is written, and the key is named. */
	@Test
	void aDuplicateInALaterChunkWritesNoJobOfTheCall() {
		this.fixture.store().insert(List.of(new NewJob("default", "work", "0", 0, null, 0, 3, "taken", null)));
		List<NewJob> jobs = new ArrayList<>();
		for (int i = 0; i < RowChunks.MAX_ROWS + 50; i++) {
			jobs.add(new NewJob("default", "work", String.valueOf(i + 1), 0, null, 0, 3,
					(i == RowChunks.MAX_ROWS + 10) ? "taken" : null, null, null, null, null, null, null,
					List.of("tag"), Map.of()));
		}
		assertThatThrownBy(() -> this.fixture.store().insert(jobs)).isInstanceOf(DuplicateJobException.class)
			.hasMessageContaining("taken");
		assertThat(this.fixture.count("1 = 1")).isEqualTo(1);
		assertThat(this.fixture.jdbc()
			.queryForObject("SELECT COUNT(*) FROM " + this.database.schema() + ".queue_job_tag", Integer.class))
			.isZero();
	}

	/**
	 * Calls on eight connections at once, each of many chunks: the servers' ids interleave
	 * between statements, and every id returned still names its own job, none twice.
	 */
	@Test
	void concurrentCallsEachGetTheirOwnJobsIds() throws Exception {
		int threads = 8;
		int calls = 4;
		int perCall = RowChunks.MAX_ROWS + 300;
		try (HikariDataSource pool = this.database.newDataSource(threads)) {
			JobStore store = this.fixture.newStore(pool);
			ExecutorService executor = Executors.newFixedThreadPool(threads);
			try {
				List<Future<Map<Long, Integer>>> futures = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					int thread = t;
					futures.add(executor.submit((Callable<Map<Long, Integer>>) () -> {
						Map<Long, Integer> expected = new HashMap<>();
						for (int c = 0; c < calls; c++) {
							List<NewJob> jobs = new ArrayList<>(perCall);
							List<Integer> numbers = new ArrayList<>(perCall);
							for (int i = 0; i < perCall; i++) {
								int number = (thread * calls + c) * perCall + i;
								numbers.add(number);
								jobs.add(new NewJob("default", "work", "{\"n\":" + number + "}", 0, null, 0, 3, null,
										null));
							}
							List<Long> ids = store.insert(jobs);
							for (int i = 0; i < perCall; i++) {
								expected.put(ids.get(i), numbers.get(i));
							}
						}
						return expected;
					}));
				}
				Map<Long, Integer> expected = new HashMap<>();
				for (Future<Map<Long, Integer>> future : futures) {
					expected.putAll(future.get(120, TimeUnit.SECONDS));
				}
				assertThat(expected).hasSize(threads * calls * perCall);
				assertThat(payloadsById()).isEqualTo(expected);
			}
			finally {
				executor.shutdownNow();
			}
		}
	}

	private Map<Long, Integer> payloadsById() {
		Map<Long, Integer> byId = new HashMap<>();
		this.fixture.jdbc()
			.query("SELECT id, JSON_VALUE(payload, '$.n') AS n FROM " + this.fixture.table(),
					(rs) -> {
						byId.put(rs.getLong("id"), Integer.valueOf(rs.getString("n")));
					});
		return Collections.unmodifiableMap(byId);
	}

}
