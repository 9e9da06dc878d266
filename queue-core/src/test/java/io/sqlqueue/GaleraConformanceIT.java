package io.sqlqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import io.sqlqueue.internal.store.LostRaces;
import io.sqlqueue.test.FlowRowWrites;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The promises that matter on a MariaDB Galera cluster where every node takes writes
 * ({@code .ci/galera start}): claims, limits and fair turns, unique keys and schedules, each
 * "other instance" of a test on another node ({@link TestDatabase#GALERA}). Nodes order their
 * transactions at commit by certification: a lost race is tried again, never run twice.
 */
@ResourceLock(TestDatabase.GALERA_SERVER)
class GaleraConformanceIT implements ClaimConformance, FlowControlConformance, FairTurnsConformance,
		ScheduleConformance, EnqueueConformance {

	private TestDatabase.Isolated database;

	private QueueFixture fixture;

	@BeforeEach
	void setUp() {
		this.database = TestDatabase.GALERA.isolated();
		this.fixture = new QueueFixture(this.database, TestDatabase.GALERA.dialect().claimMethod(),
				new PayloadCodec(tools.jackson.databind.json.JsonMapper.builder().build(), 4096));
	}

	@AfterEach
	void tearDown() throws Exception {
		if (this.fixture != null) {
			this.fixture.close();
		}
		if (this.database != null) {
			this.database.close();
		}
	}

	@Override
	public QueueFixture fixture() {
		return this.fixture;
	}

	@Override
	public TestDatabase.Isolated isolatedDatabase() {
		return this.database;
	}

	@Override
	public int concurrencyJobs() {
		return 1_000;
	}

	/**
	 * The dialect, fitted to the server at start-up, knows it runs on a Galera node: a limited
	 * claim that starts jobs writes its queue's flow row (and undoes the change), so that two
	 * nodes' claims collide at certification.
	 */
	@Test
	void aLimitedClaimOnAGaleraNodeWritesTheFlowRow() {
		assertThat(this.database.dialect().rowLocksHoldEveryWriter()).as("fitted to a Galera node").isFalse();
		assertThat(FlowRowWrites.ofALimitedClaim(this.fixture, this.database)).isEqualTo(2);
	}

	/**
	 * The same unique key enqueued at once on each node, round after round: one enqueue wins
	 * each round, the two others, which lost at certification (or found the winner's row),
	 * are {@link DuplicateJobException}s, never a deadlock.
	 */
	@Test
	void aUniqueKeyTakenOnAnotherNodeIsADuplicate() throws Exception {
		int rounds = 30;
		try (HikariDataSource two = this.database.newDataSource(4);
				HikariDataSource three = this.database.newDataSource(4)) {
			List<JobQueue> nodes = List.of(this.fixture.queue(), this.fixture.otherInstanceQueue(two),
					this.fixture.otherInstanceQueue(three));
			ExecutorService threads = Executors.newFixedThreadPool(nodes.size());
			long racesBefore = LostRaces.retried();
			try {
				for (int round = 0; round < rounds; round++) {
					String key = "report:" + round;
					CountDownLatch start = new CountDownLatch(1);
					List<CompletableFuture<Object>> enqueues = new ArrayList<>();
					for (JobQueue node : nodes) {
						enqueues.add(CompletableFuture.supplyAsync(() -> {
							try {
								start.await(10, TimeUnit.SECONDS);
								return node.enqueue(Job.of("work", "x").uniqueKey(key));
							}
							catch (DuplicateJobException ex) {
								return ex;
							}
							catch (InterruptedException ex) {
								throw new IllegalStateException(ex);
							}
						}, threads));
					}
					start.countDown();
					List<Object> outcomes = new ArrayList<>();
					for (CompletableFuture<Object> enqueue : enqueues) {
						outcomes.add(enqueue.get(60, TimeUnit.SECONDS));
					}
					assertThat(outcomes).as("round " + round).filteredOn(Long.class::isInstance).hasSize(1);
					assertThat(outcomes).as("round " + round)
						.filteredOn(DuplicateJobException.class::isInstance)
						.hasSize(2);
				}
			}
			finally {
				threads.shutdownNow();
			}
			assertThat(this.fixture.count("1 = 1")).isEqualTo(rounds);
			System.out.printf("Galera unique keys: %d rounds on %d nodes, %d races lost and tried again%n", rounds,
					nodes.size(), LostRaces.retried() - racesBefore);
		}
	}

}
