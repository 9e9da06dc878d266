package io.sqlqueue.internal.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import tools.jackson.databind.json.JsonMapper;

import io.sqlqueue.JobRecord;
import io.sqlqueue.PayloadCodec;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Through a backlog a PostgreSQL claim starts where the last full one ended (the mark,
 * {@link JobClaims}): no job is lost behind the mark, a higher priority still wins at once, a
 * job that became ready behind the mark is claimed within {@link JobClaims#HEAD_EVERY} or by
 * the first claim that comes back short, and with the horizon held every job is claimed once.
 */
@ResourceLock(TestDatabase.POSTGRESQL_SERVER)
class PostgresClaimPastMarkIT {

	private TestDatabase.Isolated database;

	private QueueFixture fixture;

	@BeforeEach
	void setUp() {
		this.database = TestDatabase.POSTGRESQL.isolated();
		this.fixture = new QueueFixture(this.database, this.database.dialect().claimMethod(),
				new PayloadCodec(JsonMapper.builder().build(), 4096));
	}

	@AfterEach
	void tearDown() throws Exception {
		this.fixture.close();
	}

	@Test
	void aHigherPriorityWinsOverTheMark() {
		enqueue(300, 0, null);
		List<JobRecord> first = claim(100);
		assertThat(first).hasSize(100);
		long urgent = enqueue(1, 5, null).get(0);
		List<JobRecord> second = claim(100);
		assertThat(second).hasSize(100);
		assertThat(second.get(0).id()).isEqualTo(urgent);
		assertThat(ids(second)).doesNotContainAnyElementsOf(ids(first));
	}

	@Test
	void aLowerPriorityFollowsOnceTheMarksPriorityRunsOut() {
		List<Long> high = enqueue(150, 5, null);
		List<Long> low = enqueue(100, 0, null);
		assertThat(ids(claim(100))).containsExactlyElementsOf(high.subList(0, 100));
		List<Long> expected = new ArrayList<>(high.subList(100, 150));
		expected.addAll(low.subList(0, 50));
		assertThat(ids(claim(100))).containsExactlyElementsOf(expected);
	}

	/** A job due before the mark (an explicit past run_at, as a late commit or a retry leaves). */
	@Test
	void aJobBehindTheMarkIsClaimedByTheFirstShortClaim() {
		List<Long> backlog = enqueue(150, 0, null);
		assertThat(ids(claim(100))).containsExactlyElementsOf(backlog.subList(0, 100));
		long late = enqueue(1, 0, Instant.now().minus(Duration.ofHours(1))).get(0);
		List<JobRecord> second = claim(100);
		assertThat(ids(second)).hasSize(51).contains(late).containsAll(backlog.subList(100, 150));
		assertThat(second.get(0).id()).isEqualTo(late);
		assertThat(this.fixture.count("status = 'QUEUED'")).isZero();
	}

	@Test
	void aJobBehindTheMarkIsClaimedWithinTheBoundThroughABacklog() {
		List<Long> backlog = enqueue(400, 0, null);
		assertThat(ids(claim(100))).containsExactlyElementsOf(backlog.subList(0, 100));
		long late = enqueue(1, 0, Instant.now().minus(Duration.ofHours(1))).get(0);
		// Past the mark, the backlog goes on in its order: the late job waits behind the mark...
		assertThat(ids(claim(100))).containsExactlyElementsOf(backlog.subList(100, 200));
		// ...until the next claim from the head, at most HEAD_EVERY later.
		LockSupport.parkNanos(JobClaims.HEAD_EVERY.plusMillis(100).toNanos());
		List<JobRecord> third = claim(100);
		assertThat(third.get(0).id()).isEqualTo(late);
		assertThat(ids(third).subList(1, 100)).containsExactlyElementsOf(backlog.subList(200, 299));
	}

	/** A job a claim left queued behind the mark (its batch lost a group's race, or its lease was released). */
	@Test
	void aJobLeftQueuedBehindTheMarkIsNotLost() {
		List<Long> backlog = enqueue(250, 0, null);
		List<JobRecord> first = claim(100);
		this.fixture.jdbc()
			.update("UPDATE " + this.fixture.table() + " SET status = 'QUEUED', lease_token = NULL, "
					+ "lease_expires_at = NULL WHERE id = ?", first.get(50).id());
		Set<Long> claimed = new HashSet<>(ids(first));
		claimed.remove(first.get(50).id());
		for (int i = 0; i < 3; i++) {
			for (JobRecord job : claim(100)) {
				assertThat(claimed.add(job.id())).as("claimed once: %s", job.id()).isTrue();
			}
		}
		assertThat(claimed).containsExactlyInAnyOrderElementsOf(backlog);
	}

	/** The case the mark is for: a transaction holds the horizon while a backlog drains. */
	@Test
	void withTheHorizonHeldEveryJobIsClaimedOnceInOrder() throws Exception {
		try (Connection held = holdTheHorizon()) {
			List<Long> backlog = enqueue(2_000, 0, null);
			List<Long> claimed = new ArrayList<>();
			for (int i = 0; i < 21; i++) {
				claimed.addAll(ids(claim(100)));
			}
			assertThat(claimed).containsExactlyElementsOf(backlog);
			held.rollback();
		}
	}

	/**
	 * Claimers in parallel share one mark and one turn at the head: with the horizon held, a
	 * job that came to lie behind the mark is still claimed, and every job once.
	 */
	@Test
	void claimersInParallelWithTheHorizonHeldClaimEveryJobOnceAndTheLateOneToo() throws Exception {
		try (Connection held = holdTheHorizon()) {
			List<Long> backlog = new ArrayList<>(this.fixture.store()
				.insert(IntStream.range(0, 6_000)
					.mapToObj((i) -> new NewJob("default", "work", "{}", 0, null, 0, 3, null, null, null, null, null,
							null))
					.toList()));
			Set<Long> claimed = ConcurrentHashMap.newKeySet();
			List<Long> twice = Collections.synchronizedList(new ArrayList<>());
			AtomicBoolean lateIn = new AtomicBoolean();
			ExecutorService claimers = Executors.newFixedThreadPool(4);
			try {
				List<Future<?>> done = new ArrayList<>();
				for (int c = 0; c < 4; c++) {
					done.add(claimers.submit(() -> {
						List<JobRecord> jobs;
						do {
							jobs = claim(20);
							for (JobRecord job : jobs) {
								if (!claimed.add(job.id())) {
									twice.add(job.id());
								}
							}
							LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
						}
						while (!jobs.isEmpty() || !lateIn.get());
					}));
				}
				// Once the claimers are through a third of the backlog: behind their mark.
				await().atMost(Duration.ofSeconds(30)).until(() -> claimed.size() >= 2_000);
				backlog.addAll(enqueue(1, 0, Instant.now().minus(Duration.ofHours(1))));
				lateIn.set(true);
				for (Future<?> claimer : done) {
					claimer.get(60, TimeUnit.SECONDS);
				}
			}
			finally {
				claimers.shutdownNow();
			}
			assertThat(twice).as("claimed twice").isEmpty();
			assertThat(claimed).containsExactlyInAnyOrderElementsOf(backlog);
			held.rollback();
		}
	}

	/** A connection whose REPEATABLE READ transaction holds an xid, and so the horizon, until rolled back. */
	private Connection holdTheHorizon() throws SQLException {
		Connection held = this.database.dataSource().getConnection();
		held.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
		held.setAutoCommit(false);
		try (Statement statement = held.createStatement()) {
			statement.execute("SELECT txid_current()");
		}
		return held;
	}

	private List<Long> enqueue(int count, int priority, Instant runAt) {
		List<NewJob> jobs = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			jobs.add(new NewJob("default", "work", "{}", priority, runAt, 0, 3, null, null, null, null, null, null));
		}
		List<Long> ids = new ArrayList<>();
		// One by one: ids and run_at in the same order, as a steady stream of enqueues leaves them.
		for (NewJob job : jobs) {
			ids.addAll(this.fixture.store().insert(List.of(job)));
		}
		return ids;
	}

	private List<JobRecord> claim(int limit) {
		return this.fixture.store().claim(new ClaimRequest("claimer", "default", List.of("work"), limit, 60_000));
	}

	private static List<Long> ids(List<JobRecord> jobs) {
		return jobs.stream().map(JobRecord::id).toList();
	}

}
