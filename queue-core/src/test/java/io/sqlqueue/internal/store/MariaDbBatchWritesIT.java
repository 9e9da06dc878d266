package io.sqlqueue.internal.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import io.sqlqueue.DuplicateJobException;
import io.sqlqueue.Job;
import io.sqlqueue.JobRecord;
import io.sqlqueue.JobStatus;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.test.OpenTransaction;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * MariaDB's writes of many jobs in one statement per chunk, on a real server: inserts as
 * multi-row {@code INSERT … RETURNING id}, each id matched to its own job; completion flushes
 * as one {@code UPDATE} joined to the flush's rows, of the rows the flush locked first.
 */
@ResourceLock(TestDatabase.MARIADB_SERVER)
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

	/**
	 * One flush of more jobs than one statement takes, with results and notes, beside a lost
	 * lease, a job whose end settles a dependent, and a job whose row a caller holds: each is
	 * recorded, passed over or refused as its own, and every recorded job has one attempt row.
	 */
	@Test
	void aFlushRecordsEachJobAsItsOwn() throws Exception {
		int count = 2 * RowChunks.MAX_ROWS + 100;
		List<NewJob> jobs = new ArrayList<>();
		for (int i = 0; i < count + 3; i++) {
			jobs.add(new NewJob("default", "work", String.valueOf(i), 0, null, 0, 3, null, null));
		}
		this.fixture.store().insert(jobs);
		List<JobRecord> claimed = claim(count + 3);
		JobRecord settling = claimed.get(count);
		JobRecord held = claimed.get(count + 1);
		JobRecord lost = claimed.get(count + 2);
		long dependent = this.fixture.queue().enqueue(Job.of("later", null).after(settling.id()));
		List<Completion> completions = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			JobRecord job = claimed.get(i);
			String result = (i % 3 == 1) ? "{\"i\":" + i + "}" : null;
			String note = (i % 3 == 2) ? "Result not stored: " + i : null;
			completions.add(new Completion(lease(job), result, note));
		}
		completions.add(new Completion(lease(settling), "\"settled\""));
		completions.add(new Completion(lease(held), null));
		completions.add(new Completion(new Lease(lost.id(), lost.leaseToken() + 1), null));
		Collections.shuffle(completions, new Random(23));
		CompletedJobs done;
		try (OpenTransaction<Long> caller = OpenTransaction
			.begin(this.database.dataSource(), () -> this.fixture.jdbc()
				.queryForObject("SELECT id FROM " + this.fixture.table() + " WHERE id = ? FOR UPDATE", Long.class,
						held.id()))) {
			caller.result();
			done = this.fixture.store().completeUnlessHeld(completions);
		}
		assertThat(done.passedOver()).containsExactly(lease(held));
		assertThat(done.recorded()).hasSize(count + 1).contains(lease(settling)).doesNotContain(lease(held));
		assertThat(this.fixture.count("status = 'SUCCEEDED'")).isEqualTo(count + 1);
		assertThat(this.fixture.status(held.id())).isEqualTo(JobStatus.RUNNING);
		assertThat(this.fixture.status(lost.id())).isEqualTo(JobStatus.RUNNING);
		assertThat(this.fixture.status(dependent)).isEqualTo(JobStatus.QUEUED);
		assertThat(this.fixture.job(settling.id()).result()).isEqualTo("\"settled\"");
		for (int i = 0; i < count; i++) {
			JobRecord job = this.fixture.job(claimed.get(i).id());
			assertThat(job.result()).isEqualTo((i % 3 == 1) ? "{\"i\":" + i + "}" : null);
			assertThat(job.lastError()).isEqualTo((i % 3 == 2) ? "Result not stored: " + i : null);
			assertThat(job.leaseToken()).as("the finished row keeps its token").isEqualTo(claimed.get(i).leaseToken());
			assertThat(job.version()).isEqualTo(claimed.get(i).version() + 1);
			assertThat(job.finishedAt()).isNotNull();
			assertThat(job.leaseExpiresAt()).isNull();
		}
		assertThat(succeededAttempts()).as("one attempt row per recorded job")
			.isEqualTo(done.recorded().stream().collect(Collectors.toMap(Lease::jobId, (lease) -> 1)));
	}

	/**
	 * On a table of three rows, where the optimizer would rather read the whole table than look
	 * the flush's jobs up by id: a row a caller holds still holds back none of the others.
	 */
	@Test
	void aFlushOnASmallTableWaitsForNoRowItDoesNotWrite() throws Exception {
		List<NewJob> jobs = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			jobs.add(new NewJob("default", "work", String.valueOf(i), 0, null, 0, 3, null, null));
		}
		this.fixture.store().insert(jobs);
		List<JobRecord> claimed = claim(3);
		try (OpenTransaction<Long> caller = OpenTransaction
			.begin(this.database.dataSource(), () -> this.fixture.jdbc()
				.queryForObject("SELECT id FROM " + this.fixture.table() + " WHERE id = ? FOR UPDATE", Long.class,
						claimed.get(1).id()))) {
			caller.result();
			List<Completion> completions = claimed.stream().map((job) -> new Completion(lease(job), null)).toList();
			CompletedJobs done = assertTimeoutPreemptively(Duration.ofSeconds(10),
					() -> this.fixture.store().completeUnlessHeld(completions));
			assertThat(done.recorded()).containsExactlyInAnyOrder(lease(claimed.get(0)), lease(claimed.get(2)));
			assertThat(done.passedOver()).containsExactly(lease(claimed.get(1)));
		}
	}

	/** Three results of 600,000 characters: over the text one statement carries, each still stored whole. */
	@Test
	void largeResultsAreSplitAcrossStatements() {
		List<NewJob> jobs = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			jobs.add(new NewJob("default", "work", "{}", 0, null, 0, 3, null, null));
		}
		this.fixture.store().insert(jobs);
		String large = "\"" + "r".repeat(600_000) + "\"";
		List<Completion> completions = claim(3).stream().map((job) -> new Completion(lease(job), large)).toList();
		assertThat(this.fixture.store().completeUnlessHeld(completions).recorded()).hasSize(3);
		assertThat(this.fixture.count("status = 'SUCCEEDED' AND LENGTH(result) = " + large.length())).isEqualTo(3);
	}

	/**
	 * Flushes racing the reaper over the same rows, the leases expiring meanwhile: a job is
	 * recorded by the flush only where its fenced write won, and then once, with one attempt
	 * row; every other job was re-queued by the reaper, and no flush counts it. A flush that
	 * took a reaped job for its own, or a job twice, fails this; so does one that lost a job
	 * (neither recorded nor re-queued).
	 */
	@Test
	void flushesRacingTheReaperRecordEachJobOnceOrNotAtAll() throws Exception {
		int count = 3000;
		List<NewJob> jobs = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			jobs.add(new NewJob("default", "work", String.valueOf(i), 0, null, 0, 100, null, null));
		}
		this.fixture.store().insert(jobs);
		List<JobRecord> claimed = new ArrayList<>();
		while (claimed.size() < count) {
			claimed.addAll(this.fixture.store()
				.claim(new ClaimRequest("racer", "default", List.of("work"), RowChunks.MAX_ROWS, 40)));
		}
		List<Completion> completions = new ArrayList<>(
				claimed.stream().map((job) -> new Completion(lease(job), null)).toList());
		Collections.shuffle(completions, new Random(7));
		try (HikariDataSource pool = this.database.newDataSource(6)) {
			JobStore flusher = this.fixture.newStore(pool);
			JobStore reaper = this.fixture.newStore(pool);
			ExecutorService executor = Executors.newFixedThreadPool(4);
			try {
				AtomicBoolean flushing = new AtomicBoolean(true);
				Future<Integer> reaped = executor.submit(() -> {
					int total = 0;
					while (flushing.get()) {
						total += reaper.reapExpired(200, 1000).size();
					}
					return total;
				});
				List<Future<Set<Lease>>> flushes = new ArrayList<>();
				int threads = 3;
				for (int t = 0; t < threads; t++) {
					List<Completion> share = new ArrayList<>();
					for (int i = t; i < count; i += threads) {
						share.add(completions.get(i));
					}
					flushes.add(executor.submit(() -> {
						Set<Lease> recorded = new HashSet<>();
						for (int from = 0; from < share.size(); from += 150) {
							// As a worker's flush, writing again what it passed over while the
							// reaper held its row, until the reaper is done with it.
							List<Completion> flush = share.subList(from, Math.min(share.size(), from + 150));
							boolean[] held = flusher.complete(flush);
							for (int i = 0; i < held.length; i++) {
								if (held[i]) {
									recorded.add(flush.get(i).lease());
								}
							}
						}
						return recorded;
					}));
				}
				Set<Lease> recorded = new HashSet<>();
				for (Future<Set<Lease>> flush : flushes) {
					recorded.addAll(flush.get(120, TimeUnit.SECONDS));
				}
				flushing.set(false);
				int requeued = reaped.get(120, TimeUnit.SECONDS);
				assertThat(recorded).as("some flushes won").isNotEmpty();
				assertThat(requeued).as("the reaper won some").isPositive();
				Map<Long, Integer> succeeded = succeededAttempts();
				assertThat(succeeded.keySet()).as("recorded exactly the jobs the flushes say they recorded")
					.isEqualTo(recorded.stream().map(Lease::jobId).collect(Collectors.toSet()));
				assertThat(succeeded.values()).as("each once").containsOnly(1);
				assertThat(this.fixture.count("status = 'SUCCEEDED'")).isEqualTo(recorded.size());
				Integer expired = this.fixture.jdbc().queryForObject("SELECT COUNT(DISTINCT job_id) FROM "
						+ this.database.schema() + ".queue_attempt WHERE outcome = 'lease-expired'", Integer.class);
				assertThat(expired).isEqualTo(count - recorded.size());
				assertThat(this.fixture.count("status = 'QUEUED'")).isEqualTo(count - recorded.size());
			}
			finally {
				executor.shutdownNow();
			}
		}
	}

	private List<JobRecord> claim(int count) {
		List<JobRecord> claimed = new ArrayList<>();
		while (claimed.size() < count) {
			List<JobRecord> more = this.fixture.store()
				.claim(new ClaimRequest("test", "default", List.of("work"), RowChunks.MAX_ROWS, 60_000));
			assertThat(more).isNotEmpty();
			claimed.addAll(more);
		}
		claimed.sort(Comparator.comparingLong(JobRecord::id));
		return claimed;
	}

	private static Lease lease(JobRecord job) {
		return new Lease(job.id(), job.leaseToken());
	}

	/** Per job, its attempts recorded as succeeded. */
	private Map<Long, Integer> succeededAttempts() {
		Map<Long, Integer> byJob = new HashMap<>();
		this.fixture.jdbc()
			.query("SELECT job_id, COUNT(*) FROM " + this.database.schema()
					+ ".queue_attempt WHERE outcome = 'succeeded' GROUP BY job_id", (rs) -> {
						byJob.put(rs.getLong(1), rs.getInt(2));
					});
		return byJob;
	}

	private Map<Long, Integer> payloadsById() {
		Map<Long, Integer> byId = new HashMap<>();
		this.fixture.jdbc()
			.query("SELECT id, JSON_VALUE(payload, '$.n') AS n FROM " + this.fixture.table(),
					(rs) -> {
						byId.put(rs.getLong("id"), Integer.valueOf(rs.getString("n")));
					});
		return byId;
	}

}
